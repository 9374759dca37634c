package main

import "errors"

func search(args []string) error  { return errors.New("search: not written yet") }
func catchup(args []string) error { return errors.New("catchup: not written yet") }
