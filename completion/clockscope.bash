# SPDX-License-Identifier: MIT
# bash completion for clockscope.  Asks the installed binary itself, so it cannot drift from
# it: commands from `clockscope --help`, each command's options from `clockscope CMD --help`,
# bench method ids from `clockscope bench --list`, ladder rung ids from `clockscope ladder --list`,
# --arch values from `clockscope vm --help`, run's --mode values from `clockscope run --help`,
# collect's --parts from the list its error names, file arguments (-o, --output, --charts...)
# from the metavariables in each --help.

# Completes the last item of a comma-separated list: "facts,do" offers "facts,doctor".
_clockscope_list()
{
    local pre=""
    [[ $2 == *,* ]] && pre=${2%,*},
    COMPREPLY=($(compgen -P "$pre" -W "$1" -- "${2##*,}"))
}

# Does the option $3 of `$1 $2` take a file or directory?  Its --help line (the option part,
# before the description's two spaces) names it beside a FILE, DIR, PATH, IMAGE, ROOT, HOST or
# OUT... metavariable: "-o, --output FILE", "-o OUT.html, --output OUT.html", "--charts DIR".
_clockscope_takes_file()
{
    "$1" "$2" --help 2>/dev/null | awk -v opt="$3" '
        /^ *-/ {
            spec = $0; sub(/^ +/, "", spec); sub(/  .*/, "", spec)
            n = split(spec, w, /[ ,=|\[\]]+/); named = 0; file = 0
            for (i = 1; i <= n; i++) {
                if (w[i] == opt) named = 1
                if (w[i] ~ /^(FILE|DIR|PATH|IMAGE|ROOT|HOST|OUT)/) file = 1
            }
            if (named && file) found = 1
        }
        END { exit !found }'
}

_clockscope_help_options()
{
    # Every -x and --option word of an option line (its part before the description's two
    # spaces), once: "  --json", "  -h, --help", "  -o OUT.html, --output OUT.html".
    "$1" "$2" --help 2>/dev/null | awk '
        /^ *-/ {
            spec = $0; sub(/^ +/, "", spec); sub(/  .*/, "", spec)
            n = split(spec, w, /[ ,=|\[\]]+/)
            for (i = 1; i <= n; i++)
                if (w[i] ~ /^--?[a-zA-Z][a-zA-Z0-9-]*$/) print w[i]
        }' | sort -u
}

_clockscope()
{
    local cur prev words cword
    _init_completion 2>/dev/null || {
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    }
    local prog=${words[0]} cmd="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --) return 0 ;;  # after --, the words belong to the command run inside
            -*) ;;
            *) cmd=${words[i]}; break ;;
        esac
    done
    local commands
    commands=$("$prog" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return 0
    fi
    # A `--` after the command: what follows is a command line of its own (for vm, a
    # clockscope command run inside the guest; for run, any program).
    for ((i = i + 1; i < cword; i++)); do
        if [[ ${words[i]} == -- ]]; then
            if [[ $cmd == vm && $i == $((cword - 1)) ]]; then
                COMPREPLY=($(compgen -W "$commands" -- "$cur"))
            elif [[ ($cmd == run || $cmd == profile) && $i == $((cword - 1)) ]]; then
                COMPREPLY=($(compgen -c -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return 0
        fi
    done
    case $prev in
        --arch)
            local arches
            # The names on vm's "--arch ARCH   x86_64, aarch64 or riscv64" line.
            arches=$("$prog" vm --help 2>/dev/null |
                sed -n 's/^ *--arch ARCH *//p' | tr -cs 'a-z0-9_' '\n' | grep '[0-9]')
            COMPREPLY=($(compgen -W "$arches" -- "$cur"))
            return 0 ;;
        --scenario)
            local names
            names=$("$prog" vm --list-scenarios 2>/dev/null | sed -n 's/^\([a-z0-9_-]*\)  (doctor: .*/\1/p')
            COMPREPLY=($(compgen -W "$names" -- "$cur"))
            return 0 ;;
        --only)
            if [[ $cmd == bench ]]; then
                local ids
                ids=$("$prog" bench --list 2>/dev/null | awk '{print $1}')
                COMPREPLY=($(compgen -W "$ids" -- "$cur"))
                return 0
            elif [[ $cmd == ladder ]]; then
                local ids
                ids=$("$prog" ladder --list 2>/dev/null | awk '{print $1}')
                COMPREPLY=($(compgen -W "$ids" -- "$cur"))
            elif [[ $cmd == runtimes ]]; then
                # The names on runtimes' "--only RUNTIMES  comma-separated: c, python, ..." line.
                local names
                names=$("$prog" runtimes --help 2>/dev/null |
                    sed -n 's/^ *--only RUNTIMES *comma-separated: *//p' | sed 's/(.*//' |
                    tr -cs 'a-z' '\n')
                _clockscope_list "$names" "$cur"
                return 0
            fi ;;
        --parts)
            if [[ $cmd == collect ]]; then
                # collect names every part when it refuses one ("?" can never be a part).
                local names
                names=$("$prog" collect --parts '?' 2>&1 >/dev/null |
                    sed -n 's/.*(parts: \(.*\)).*/\1/p' | tr -d ',')
                _clockscope_list "$names" "$cur"
                return 0
            fi ;;
        --mode)
            if [[ $cmd == run ]]; then
                # The values on run's "  --mode VALUE  ..." help lines.
                local modes
                modes=$("$prog" run --help 2>/dev/null | sed -n 's/^ *--mode \([a-z][a-z]*\).*/\1/p')
                COMPREPLY=($(compgen -W "$modes" -- "$cur"))
                return 0
            fi ;;
    esac
    # An option whose help line names a file or directory argument.
    if [[ $prev == -* ]] && _clockscope_takes_file "$prog" "$cmd" "$prev"; then
        COMPREPLY=($(compgen -f -- "$cur"))
        return 0
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_clockscope_help_options "$prog" "$cmd")" -- "$cur"))
    fi
    return 0
}
# bash looks a compspec up by the command word as typed, then by its part after the last
# slash: this one also serves ./build/clockscope, asking that binary (words[0]) itself.
complete -F _clockscope clockscope
