package a2ui

// ForgetVerdicts empties the validator's remembered schema verdicts, so
// the next check of every message runs in full (benchmarks of a message
// seen for the first time).
func (v *Validator) ForgetVerdicts() {
	v.verdicts.mu.Lock()
	clear(v.verdicts.ok)
	clear(v.verdicts.probes)
	v.verdicts.mu.Unlock()
}
