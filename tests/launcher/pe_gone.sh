# shellcheck shell=bash
# pe_gone.sh - sourced by the launcher test scripts: waiting for PE processes to end once their launcher is gone.
# A PE reparented to init stays a zombie until init reaps it: that counts as gone.
pe_running() { # PID
    kill -0 "$1" 2>/dev/null && ! grep -qE '^[0-9]+ \(.*\) [ZX]' "/proc/$1/stat" 2>/dev/null
}

# Waits until none of PIDS runs or SECONDS have passed since T0_NS (date +%s%N); prints the PIDs still running.
pes_left_after() { # T0_NS SECONDS PID...
    local t0=$1 secs=$2 p left
    shift 2
    while :; do
        left=
        for p in "$@"; do
            pe_running "$p" && left="$left $p"
        done
        [ -z "$left" ] && return 0
        [ $((($(date +%s%N) - t0) / 1000000)) -lt $((secs * 1000)) ] || break
        sleep 0.1
    done
    echo "$left"
}
