# SPDX-License-Identifier: MIT
# fish completion for clockscope.  As the bash completion (clockscope.bash), it asks the
# binary being completed itself, so it cannot drift from it: commands from `clockscope
# --help`, each command's options from `clockscope CMD --help`, bench and ladder ids from
# their --list, vm scenarios from --list-scenarios, run's modes from run --help.

# The binary being completed (./build/clockscope as well as clockscope on PATH).
function __clockscope_prog
    set -l words (commandline -opc)
    echo $words[1]
end

# The clockscope command on the line (bench, doctor, ...), or nothing before one is given.
function __clockscope_cmd
    set -l words (commandline -opc)
    for w in $words[2..-1]
        switch $w
            case '--'
                return 1
            case '-*'
            case '*'
                echo $w
                return 0
        end
    end
    return 1
end

function __clockscope_commands
    set -l prog (__clockscope_prog)
    $prog --help 2>/dev/null | string replace -rf '^  ([a-z]+)  +(.*)$' '$1\t$2'
end

# Every -x and --option word of the command's option lines (the part before two spaces).
function __clockscope_options
    set -l cmd (__clockscope_cmd); or return
    set -l prog (__clockscope_prog)
    __clockscope_option_specs $prog $cmd | string replace -ra '[,=|\[\]]' ' ' |
        string split -n ' ' | string match -r '^--?[a-zA-Z][a-zA-Z0-9-]*$' | sort -u
end

# The option part of each option line of `PROG CMD --help` (before the two spaces).
function __clockscope_option_specs
    $argv[1] $argv[2] --help 2>/dev/null | string match -r '^ *-.*' |
        string replace -r '^ +' '' | string replace -r '  .*' ''
end

# Whether the word before the cursor is an option whose help line names a FILE, DIR, PATH,
# IMAGE, ROOT, HOST or OUT... argument.
function __clockscope_wants_file
    set -l cmd (__clockscope_cmd); or return 1
    set -l words (commandline -opc)
    set -l opt $words[-1]
    string match -q -- '-*' $opt; or return 1
    for spec in (__clockscope_option_specs (__clockscope_prog) $cmd)
        set -l w (string replace -ra '[,=|\[\]]' ' ' -- $spec | string split -n ' ')
        if contains -- $opt $w; and string match -qr '^(FILE|DIR|PATH|IMAGE|ROOT|HOST|OUT)' -- $w
            return 0
        end
    end
    return 1
end

function __clockscope_prev_is
    set -l words (commandline -opc)
    test "$words[-1]" = $argv[1]
end

function __clockscope_ids
    set -l cmd (__clockscope_cmd); or return
    set -l prog (__clockscope_prog)
    switch $cmd
        case bench ladder
            $prog $cmd --list 2>/dev/null | string replace -r '\s.*' ''
    end
end

complete -c clockscope -f
complete -c clockscope -n 'not __clockscope_cmd' -a '(__clockscope_commands)'
complete -c clockscope -n '__clockscope_cmd; and string match -q -- "-*" (commandline -ct)' -a '(__clockscope_options)'
complete -c clockscope -n '__clockscope_prev_is --only' -a '(__clockscope_ids)'
function __clockscope_scenarios
    set -l prog (__clockscope_prog)
    $prog vm --list-scenarios 2>/dev/null | string replace -rf '^([a-z0-9_-]+)  \(doctor: .*' '$1'
end

function __clockscope_modes
    set -l prog (__clockscope_prog)
    $prog run --help 2>/dev/null | string replace -rf '^ *--mode ([a-z]+).*' '$1'
end

complete -c clockscope -n '__clockscope_prev_is --scenario' -a '(__clockscope_scenarios)'
complete -c clockscope -n '__clockscope_prev_is --mode' -a '(__clockscope_modes)'
complete -c clockscope -n '__clockscope_wants_file' -F
