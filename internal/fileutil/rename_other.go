//go:build !linux && !darwin

package fileutil

func renameNoReplace(int, string, string) error { return ErrNoReplaceUnsupported }
