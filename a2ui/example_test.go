package a2ui_test

import (
	"fmt"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

// ExampleValidator checks two A2UI batches: a small valid surface, and one
// whose Button names a child component that does not exist.
func ExampleValidator() {
	v := a2ui.MustValidator(a2ui.Options{})
	const create = `{"version":"v0.9","createSurface":{"surfaceId":"s1","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json"}}`
	valid := `{"version":"v0.9","updateComponents":{"surfaceId":"s1","components":[` +
		`{"id":"root","component":"Text","text":"Hello"}]}}`
	invalid := `{"version":"v0.9","updateComponents":{"surfaceId":"s1","components":[` +
		`{"id":"root","component":"Button","child":"label","action":{"event":{"name":"go"}}}]}}`

	for _, batch := range []string{valid, invalid} {
		errs := v.ValidateBatch([][]byte{[]byte(create), []byte(batch)})
		if len(errs) == 0 {
			fmt.Println("valid")
			continue
		}
		for _, e := range errs {
			fmt.Printf("invalid: %s at %s\n", e.Rule, e.Path)
		}
	}
	// Output:
	// valid
	// invalid: unresolved_child at /updateComponents/components/0/child
}
