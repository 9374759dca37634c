//go:build !linux

package main

// remoteFileSystem cannot tell on this system: "".
func remoteFileSystem(string) string { return "" }
