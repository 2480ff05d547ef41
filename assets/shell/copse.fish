# copse shell integration for fish. Load it from ~/.config/fish/config.fish with:
#     command copse init fish | source
# It defines a function `copse` that runs the copse binary with COPSE_CD_FILE set to a
# fresh temporary file; when copse writes a directory there (switch, back, the picker),
# the function changes to it. The directory you left is kept in the global variable
# __copse_previous, never on disk, and handed back to copse as COPSE_PREVIOUS so that
# `copse back` knows where this shell came from.
function copse --description 'copse: git worktrees (changes directory on switch and back)'
    set -l __copse_tmp /tmp
    set -q TMPDIR; and test -n "$TMPDIR"; and set __copse_tmp $TMPDIR
    set -l __copse_file (mktemp "$__copse_tmp/copse-cd.XXXXXXXX"); or return 1
    set -q __copse_previous; or set -g __copse_previous ''
    env "COPSE_CD_FILE=$__copse_file" "COPSE_PREVIOUS=$__copse_previous" copse $argv
    set -l __copse_status $status
    if test -s "$__copse_file"
        set -l __copse_dir (string collect -N < "$__copse_file")
        if test "$__copse_dir" != "$PWD"
            set -l __copse_here $PWD
            if cd "$__copse_dir"
                set -g __copse_previous $__copse_here
            else
                set __copse_status 1
            end
        end
    end
    rm -f -- "$__copse_file"
    return $__copse_status
end
