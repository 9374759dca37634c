package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// CompletionCmd is `tape completion`.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell: bash, zsh or fish."`
}

func (c *CompletionCmd) Help() string {
	return `Prints a script that completes tape's commands and flags (and the values
of flags that take a fixed set) in your shell.

Examples:
  source <(tape completion bash)                       # in ~/.bashrc
  source <(tape completion zsh)                        # in ~/.zshrc
  tape completion fish > ~/.config/fish/completions/tape.fish`
}

// Run writes the script, made from the same kong model that parses the
// command line, so it never lists a command or flag that is not there.
func (c *CompletionCmd) Run(env *Env, kctx *kong.Context) error {
	m := completionModel(kctx.Model)
	var err error
	switch c.Shell {
	case "bash":
		err = writeBash(env.Stdout, m)
	case "zsh":
		if _, err = io.WriteString(env.Stdout, "#compdef tape\nautoload -U +X bashcompinit && bashcompinit\n"); err == nil {
			err = writeBash(env.Stdout, m)
		}
	case "fish":
		err = writeFish(env.Stdout, m)
	}
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// completion is what a script completes: commands, and flags.
type completion struct {
	globals  []compFlag
	commands []compCommand
}

// compCommand is a command, or a subcommand (tape import claude), whose
// path is its words.
type compCommand struct {
	name, help string
	flags      []compFlag
	subs       []compCommand
}

type compFlag struct {
	long, help string
	short      rune
	takesValue bool
	enum       []string
}

func completionModel(app *kong.Application) completion {
	return completion{globals: compFlags(app.Flags), commands: compCommands(app.Node)}
}

// compCommands are the commands under node, each with its subcommands.
func compCommands(node *kong.Node) []compCommand {
	var out []compCommand
	for _, n := range node.Children {
		if n.Hidden || n.Type != kong.CommandNode {
			continue
		}
		out = append(out, compCommand{name: n.Name, help: n.Help, flags: compFlags(n.Flags), subs: compCommands(n)})
	}
	return out
}

// subNames are the names of c's subcommands.
func (c compCommand) subNames() []string {
	names := make([]string, len(c.subs))
	for i, s := range c.subs {
		names[i] = s.name
	}
	return names
}

func compFlags(flags []*kong.Flag) []compFlag {
	var out []compFlag
	for _, f := range flags {
		if f.Hidden {
			continue
		}
		cf := compFlag{long: f.Name, help: f.Help, short: f.Short, takesValue: !f.IsBool() && !f.IsCounter()}
		if f.Enum != "" {
			cf.enum = f.EnumSlice()
		} else if v := f.Tag.Get("values"); v != "" {
			// A flag checked in Validate, where "" (no filter) is allowed,
			// names its values for completion with a values:"" tag.
			cf.enum = strings.Split(v, ",")
		}
		out = append(out, cf)
	}
	return out
}

func (f compFlag) words() []string {
	w := []string{"--" + f.long}
	if f.short != 0 {
		w = append(w, "-"+string(f.short))
	}
	return w
}

func flagWords(flags []compFlag) string {
	var w []string
	for _, f := range flags {
		w = append(w, f.words()...)
	}
	return strings.Join(w, " ")
}

// writeBash writes a completion function: the first word that is not a
// flag (or a flag's value) is the command, and for a command with
// subcommands (tape import) the next such word too; complete the flags of
// it and the global ones, its subcommands, or the command itself.
func writeBash(w io.Writer, m completion) error {
	var b strings.Builder
	var names, valued, parents []string
	for _, c := range m.commands {
		names = append(names, c.name)
		if len(c.subs) > 0 {
			parents = append(parents, c.name)
		}
	}
	all := append(slices.Clone(m.globals), flatFlags(m.commands)...)
	for _, f := range all {
		if f.takesValue {
			valued = append(valued, f.words()...)
		}
	}
	slices.Sort(valued)
	valued = slices.Compact(valued)
	fmt.Fprintf(&b, "# bash completion for tape; source <(tape completion bash)\n_tape() {\n")
	fmt.Fprintf(&b, "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" cmd=\"\" i\n")
	fmt.Fprintf(&b, "  for ((i=1; i<COMP_CWORD; i++)); do\n    case \"${COMP_WORDS[i]}\" in\n")
	fmt.Fprintf(&b, "      %s) ((i++)) ;;\n      -*) ;;\n", strings.Join(valued, "|"))
	if len(parents) == 0 {
		fmt.Fprintf(&b, "      *) cmd=\"${COMP_WORDS[i]}\"; break ;;\n    esac\n  done\n")
	} else {
		fmt.Fprintf(&b, "      *) cmd=\"${cmd:+$cmd }${COMP_WORDS[i]}\"; case \"$cmd\" in %s) ;; *) break ;; esac ;;\n    esac\n  done\n", strings.Join(parents, "|"))
	}
	fmt.Fprintf(&b, "  case \"$prev\" in\n")
	for _, f := range enumFlags(all) {
		fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", strings.Join(f.words(), "|"), strings.Join(f.enum, " "))
	}
	fmt.Fprintf(&b, "  esac\n  case \"$cmd\" in\n")
	fmt.Fprintf(&b, "    \"\") COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", strings.Join(names, " ")+" "+flagWords(m.globals))
	for _, c := range m.commands {
		words := flagWords(c.flags) + " " + flagWords(m.globals)
		if len(c.subs) > 0 {
			words = strings.Join(c.subNames(), " ") + " " + words
		}
		fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", c.name, words)
		for _, s := range c.subs {
			fmt.Fprintf(&b, "    %q) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", c.name+" "+s.name, flagWords(s.flags)+" "+flagWords(m.globals))
		}
	}
	fmt.Fprintf(&b, "  esac\n}\ncomplete -o default -F _tape tape\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFish writes fish's complete commands: commands while none is given,
// then each command's flags.
func writeFish(w io.Writer, m completion) error {
	var b strings.Builder
	b.WriteString("# fish completion for tape; tape completion fish > ~/.config/fish/completions/tape.fish\n")
	b.WriteString("complete -c tape -f\n")
	for _, c := range m.commands {
		fmt.Fprintf(&b, "complete -c tape -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.help))
	}
	writeFishFlags(&b, "", m.globals)
	for _, c := range m.commands {
		writeFishFlags(&b, "__fish_seen_subcommand_from "+c.name, c.flags)
		if len(c.subs) == 0 {
			continue
		}
		none := "__fish_seen_subcommand_from " + c.name + "; and not __fish_seen_subcommand_from " + strings.Join(c.subNames(), " ")
		for _, s := range c.subs {
			fmt.Fprintf(&b, "complete -c tape -n %s -a %s -d %s\n", fishQuote(none), s.name, fishQuote(s.help))
		}
		for _, s := range c.subs {
			writeFishFlags(&b, "__fish_seen_subcommand_from "+c.name+"; and __fish_seen_subcommand_from "+s.name, s.flags)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeFishFlags(b *strings.Builder, cond string, flags []compFlag) {
	for _, f := range flags {
		b.WriteString("complete -c tape")
		if cond != "" {
			fmt.Fprintf(b, " -n %s", fishQuote(cond))
		}
		fmt.Fprintf(b, " -l %s", f.long)
		if f.short != 0 {
			fmt.Fprintf(b, " -s %c", f.short)
		}
		if f.takesValue {
			b.WriteString(" -r")
		}
		if len(f.enum) > 0 {
			fmt.Fprintf(b, " -a %s", fishQuote(strings.Join(f.enum, " ")))
		}
		fmt.Fprintf(b, " -d %s\n", fishQuote(f.help))
	}
}

func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// flatFlags are the flags of cmds and of their subcommands.
func flatFlags(cmds []compCommand) []compFlag {
	var out []compFlag
	for _, c := range cmds {
		out = append(out, c.flags...)
		out = append(out, flatFlags(c.subs)...)
	}
	return out
}

func enumFlags(flags []compFlag) []compFlag {
	var out []compFlag
	seen := map[string]bool{}
	for _, f := range flags {
		if len(f.enum) > 0 && !seen[f.long] {
			seen[f.long] = true
			out = append(out, f)
		}
	}
	return out
}
