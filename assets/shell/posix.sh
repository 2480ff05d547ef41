# It defines a function `copse` that runs the copse binary with COPSE_CD_FILE set to a
# fresh temporary file; when copse writes a directory there (switch, back, the picker),
# the function changes to it. The directory you left is kept in the shell variable
# __copse_previous, never on disk, and handed back to copse as COPSE_PREVIOUS so that
# `copse back` knows where this shell came from.
copse() {
    local __copse_file __copse_status __copse_dir __copse_here
    __copse_file=$(mktemp "${TMPDIR:-/tmp}/copse-cd.XXXXXXXX") || return 1
    COPSE_CD_FILE=$__copse_file COPSE_PREVIOUS=${__copse_previous-} command copse "$@"
    __copse_status=$?
    if [ -s "$__copse_file" ]; then
        # The x keeps a trailing newline of the path from being stripped.
        __copse_dir=$(cat -- "$__copse_file" && printf x)
        __copse_dir=${__copse_dir%x}
        if [ "$__copse_dir" != "$PWD" ]; then
            __copse_here=$PWD
            if builtin cd -- "$__copse_dir"; then
                __copse_previous=$__copse_here
            else
                __copse_status=1
            fi
        fi
    fi
    rm -f -- "$__copse_file"
    return "$__copse_status"
}
