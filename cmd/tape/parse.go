package main

import (
	"reflect"
	"slices"
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
	run := func(parser *kong.Kong) (*kong.Context, error) {
		kctx, err := parser.Parse(textAfterWords(parser.Model, args))
		if err == nil {
			cli.tapeFlag = tapeFlagGiven(kctx)
		}
		return kctx, err
	}
	if command := plainCommand(args); command != "" && !env.wholeModel {
		if parser, err := newParser(cli, env, command, options...); err == nil {
			if kctx, err := run(parser); err == nil {
				return kctx, nil
			}
		}
		*cli = CLI{} // what the failed parse set
	}
	parser, err := newParser(cli, env, "", options...)
	if err != nil {
		return nil, err
	}
	return run(parser)
}

// A command whose last argument is tagged text:"" (search's query) takes
// text, not flags, once its first word is given: `tape search git --no-ff`
// searches for "git --no-ff". Its own flags and the global ones still
// work after the words, as ripgrep's do after its pattern, when written
// as --help lists them: --name, --name=VALUE or --name VALUE, and a short
// flag alone (-n 5; -n5 and -rf are words). Before the first word, and
// for a query that starts with -, -- ends the flags as usual.
//
// kong has no such mode (its passthrough ends the flags at the first
// word, so `tape search x --all-tapes` would search for "x --all-tapes"),
// so the arguments are rearranged before kong reads them: the flags after
// the first word are moved before it, and -- is put between them and the
// words.

// textAfterWords returns args with the flags that follow the first word
// of a text argument moved before it, and -- between them and the words
// (the first -- of args dropped: it said the same). Args of a command
// without a text argument, or with no word given, are returned as they
// are.
func textAfterWords(app *kong.Application, args []string) []string {
	at := commandIndex(args)
	if at < 0 {
		return args
	}
	node := childNamed(app, args[at])
	if node == nil || len(node.Positional) == 0 || !node.Positional[len(node.Positional)-1].Tag.Has("text") {
		return args
	}
	flags := flagsOf(node)
	first := -1 // the first word
	for i := at + 1; i < len(args) && first < 0; i++ {
		switch a := args[i]; {
		case a == "--":
			return args // kong reads what follows as words
		case a != "-" && strings.HasPrefix(a, "-"):
			if f := flags.lookup(a); f != nil && takesValue(f, a) {
				i++
			}
		default:
			first = i
		}
	}
	if first < 0 {
		return args
	}
	moved := slices.Clone(args[:first])
	var words []string
	for i := first; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		f := flags.lookup(a)
		if f == nil {
			words = append(words, a)
			continue
		}
		moved = append(moved, a)
		if takesValue(f, a) {
			if i+1 == len(args) || args[i+1] == "--" {
				return moved // a flag without its value: kong says so
			}
			i++
			moved = append(moved, args[i])
		}
	}
	return append(append(moved, "--"), words...)
}

// commandIndex returns where args name their command: the first argument
// that is neither a flag nor a global flag's value, before any --; -1 if
// there is none.
func commandIndex(args []string) int {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			return -1
		case strings.HasPrefix(a, "-"):
			if globalTakesValue(a) {
				i++
			}
		default:
			return i
		}
	}
	return -1
}

// childNamed is the command of app named name, or nil.
func childNamed(app *kong.Application, name string) *kong.Node {
	for _, n := range app.Children {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// flagSet is the flags a command takes: its own and those of the commands
// above it, the global ones among them.
type flagSet []*kong.Flag

func flagsOf(n *kong.Node) flagSet {
	var set flagSet
	for ; n != nil; n = n.Parent {
		set = append(set, n.Flags...)
	}
	return set
}

// lookup returns the flag arg is, as --help lists it (--name, --name=VALUE,
// or -c alone), or nil.
func (s flagSet) lookup(arg string) *kong.Flag {
	for _, f := range s {
		if name, ok := strings.CutPrefix(arg, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			if name == f.Name || slices.Contains(f.Aliases, name) {
				return f
			}
		} else if f.Short != 0 && arg == "-"+string(f.Short) {
			return f
		}
	}
	return nil
}

// takesValue reports whether flag f, written as arg, takes the next
// argument as its value.
func takesValue(f *kong.Flag, arg string) bool {
	return !f.IsBool() && !f.IsCounter() && !strings.Contains(arg, "=")
}

// needsWholeModel reports whether a command reads kong's model of every
// command (completion prints it).
func needsWholeModel(command string) bool { return command == "completion" }

// plainCommand returns the command args name, or "" unless the model of
// that command alone can parse them: the command is the first argument
// that is neither a flag nor a global flag's value (commandIndex), and no
// argument before a -- asks for help (kong prints help as it parses, from
// the model it has).
func plainCommand(args []string) string {
	at := commandIndex(args)
	if at < 0 {
		return ""
	}
	command := args[at]
	if _, ok := commandField(command); !ok || needsWholeModel(command) {
		return ""
	}
	for _, a := range args {
		switch {
		case a == "--":
			return command // what follows is arguments, even "-h"
		case a == "--help" || strings.HasPrefix(a, "--help=") || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'h')):
			return "" // --help, --help=true, -h, or -h among short flags (or in a value: the whole model is never wrong)
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
