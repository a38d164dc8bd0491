//go:build !linux

package main

import "errors"

var errNoPinning = errors.New("pinning processes to cores is implemented for Linux only")

func pinSelf(int) (func(), error) { return nil, errNoPinning }

func startOn(int, string, ...string) (*proc, error) { return nil, errNoPinning }
