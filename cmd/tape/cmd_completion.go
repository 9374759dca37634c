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

type compCommand struct {
	name, help string
	flags      []compFlag
}

type compFlag struct {
	long, help string
	short      rune
	takesValue bool
	enum       []string
}

func completionModel(app *kong.Application) completion {
	var m completion
	m.globals = compFlags(app.Flags)
	for _, n := range app.Children {
		if n.Hidden || n.Type != kong.CommandNode {
			continue
		}
		m.commands = append(m.commands, compCommand{name: n.Name, help: n.Help, flags: compFlags(n.Flags)})
	}
	return m
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
// flag (or a flag's value) is the command; complete flags of it and the
// global ones, or the command itself.
func writeBash(w io.Writer, m completion) error {
	var b strings.Builder
	var names, valued []string
	for _, c := range m.commands {
		names = append(names, c.name)
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
	fmt.Fprintf(&b, "      %s) ((i++)) ;;\n      -*) ;;\n      *) cmd=\"${COMP_WORDS[i]}\"; break ;;\n    esac\n  done\n", strings.Join(valued, "|"))
	fmt.Fprintf(&b, "  case \"$prev\" in\n")
	for _, f := range enumFlags(all) {
		fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", strings.Join(f.words(), "|"), strings.Join(f.enum, " "))
	}
	fmt.Fprintf(&b, "  esac\n  case \"$cmd\" in\n")
	fmt.Fprintf(&b, "    \"\") COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", strings.Join(names, " ")+" "+flagWords(m.globals))
	for _, c := range m.commands {
		fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", c.name, flagWords(c.flags)+" "+flagWords(m.globals))
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

func flatFlags(cmds []compCommand) []compFlag {
	var out []compFlag
	for _, c := range cmds {
		out = append(out, c.flags...)
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
