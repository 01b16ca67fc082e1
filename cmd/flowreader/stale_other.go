//go:build !unix

package main

// processAlive cannot tell here: every file is taken as another process's.
func processAlive(int) bool { return true }
