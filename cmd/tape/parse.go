package main

import (
	"reflect"
	"strings"

	"github.com/alecthomas/kong"
)

// Parsing the command line with a model of one command.
//
// kong builds its model of the whole command line, every command and flag
// with its tags parsed and its help interpolated, before it parses a
// single argument: 2 ms of CPU, a quarter of `tape version` and a tenth of
// a search at 1M entries, paid by every agent that runs tape as a
// subprocess (docs/decisions/0014). When the arguments name their command
// plainly, the model is built of that command and the global flags alone
// (kong.DynamicCommand over the same field of CLI, so the command runs
// exactly as it would). Anything that needs the rest of the model is
// parsed by the whole one: a help flag, a command that reads the model
// (completion), and any argument list the small model does not parse
// cleanly, so errors and their suggestions read as they always did.

// newParser builds kong's model of cli: of every command if command is "",
// else of command alone, with the global flags.
func newParser(cli *CLI, env *Env, command string, options ...kong.Option) (*kong.Kong, error) {
	options = append([]kong.Option{
		kong.Name("tape"),
		kong.Description(cliDescription),
		kong.Writers(env.Stdout, env.Stderr),
		kong.ExplicitGroups(groups),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Bind(env, &cli.Globals),
	}, options...)
	if command == "" {
		return kong.New(cli, options...)
	}
	f, ok := commandField(command)
	if !ok {
		return kong.New(cli, options...)
	}
	field := reflect.ValueOf(cli).Elem().FieldByIndex(f.Index).Addr().Interface()
	options = append(options, kong.DynamicCommand(command, f.Tag.Get("help"), f.Tag.Get("group"), field))
	return kong.New(&cli.Globals, options...)
}

// parse parses args into cli, with the model of the command they name if
// they name one plainly (plainCommand), else, or if that fails, with the
// whole model.
func parse(cli *CLI, env *Env, args []string, options ...kong.Option) (*kong.Context, error) {
	if command := plainCommand(args); command != "" && !env.wholeModel {
		if parser, err := newParser(cli, env, command, options...); err == nil {
			if kctx, err := parser.Parse(args); err == nil {
				cli.tapeFlag = tapeFlagGiven(kctx)
				return kctx, nil
			}
		}
		*cli = CLI{} // what the failed parse set
	}
	parser, err := newParser(cli, env, "", options...)
	if err != nil {
		return nil, err
	}
	kctx, err := parser.Parse(args)
	if err == nil {
		cli.tapeFlag = tapeFlagGiven(kctx)
	}
	return kctx, err
}

// needsWholeModel reports whether a command reads kong's model of every
// command (completion prints it).
func needsWholeModel(command string) bool { return command == "completion" }

// plainCommand returns the command args name, or "" unless the model of
// that command alone can parse them: the command is the first argument
// that is neither a flag nor a global flag's value, and no argument asks
// for help (kong prints help as it parses, from the model it has).
func plainCommand(args []string) string {
	command := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if command == "" {
				return ""
			}
			return command // what follows is arguments, even "-h"
		case a == "--help" || strings.HasPrefix(a, "--help=") || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'h')):
			return "" // --help, --help=true, -h, or -h among short flags (or in a value: the whole model is never wrong)
		case strings.HasPrefix(a, "-"):
			if command == "" && globalTakesValue(a) {
				i++ // its value, which may look like a command
			}
		case command == "":
			if _, ok := commandField(a); !ok || needsWholeModel(a) {
				return ""
			}
			command = a
		}
	}
	return command
}

// commandField returns CLI's field of the command named name.
func commandField(name string) (reflect.StructField, bool) {
	t := reflect.TypeFor[CLI]()
	for i := range t.NumField() {
		f := t.Field(i)
		if _, ok := f.Tag.Lookup("cmd"); ok && kongName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// globalTakesValue reports whether arg is a global flag, long or short,
// that takes its value from the next argument.
func globalTakesValue(arg string) bool {
	t := reflect.TypeFor[Globals]()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() == reflect.Bool {
			continue
		}
		if arg == "--"+kongName(f) || (f.Tag.Get("short") != "" && arg == "-"+f.Tag.Get("short")) {
			return true
		}
	}
	return false
}

// kongName is the name kong gives a field: its name tag, else its Go name
// in lower case, with a dash before each inner capital (TapeDir:
// tape-dir). TestParseWithOneCommand checks it against kong's model.
func kongName(f reflect.StructField) string {
	if name := f.Tag.Get("name"); name != "" {
		return name
	}
	var b strings.Builder
	for i, r := range f.Name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('-')
		}
		b.WriteRune(r)
	}
	return strings.ToLower(b.String())
}
