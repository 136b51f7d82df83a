# shellcheck shell=bash
# tests/procs.sh: finding and stopping every process a test suite started; sourced by
# tests/run.sh and tests/integration/lib.sh. A suite's processes are those whose environment
# holds SCALELAB_SUITE_ID=<the suite's id> (run.sh gives each suite its own; lib.sh makes one
# for a script run alone). Every process the suite starts inherits it, whatever process group
# or parent it ends up with, and no other process has it: so a process group is signalled
# only while one of our processes is in it, never a group whose number the kernel has given
# to someone else's process since.

# suite_procs ID: prints "PID PGID" for each live process (zombies left out) of suite ID,
# except the calling shell. Reads /proc with builtins only.
suite_procs() {
    local want="SCALELAB_SUITE_ID=$1" d p e line
    local -a env stat
    for d in /proc/[0-9]*; do
        p=${d#/proc/}
        if [ "$p" = "$$" ] || [ "$p" = "$BASHPID" ]; then continue; fi
        mapfile -d "" -t env 2>/dev/null <"$d/environ" || continue
        for e in "${env[@]}"; do
            [ "$e" = "$want" ] || continue
            read -r line 2>/dev/null <"$d/stat" || break
            read -r -a stat <<<"${line##*) }" # state ppid pgrp ...
            [ "${stat[0]}" = Z ] || echo "$p ${stat[2]}"
            break
        done
    done
}

# stop_suite ID [SECS]: stops every process of suite ID (safe under set -e). Each process group holding one is
# sent SIGTERM (a process in the caller's own group is signalled alone), given up to SECS
# seconds (5) to end, then what is left gets SIGKILL the same way.
stop_suite() {
    local id=$1 secs=${2:-5} sig p g line mine end
    local -a stat
    local -A groups
    read -r line </proc/$$/stat
    read -r -a stat <<<"${line##*) }"
    mine=${stat[2]}
    for sig in TERM KILL; do
        groups=()
        while read -r p g; do
            if [ "$g" = "$mine" ]; then kill -"$sig" "$p" 2>/dev/null || true; else groups[$g]=1; fi
        done < <(suite_procs "$id")
        # (a process may have ended since it was listed)
        [ "${#groups[@]}" -eq 0 ] || for g in "${!groups[@]}"; do kill -"$sig" -- "-$g" 2>/dev/null || true; done
        [ "$sig" = KILL ] && break
        end=$((${EPOCHREALTIME/./} + secs * 1000000))
        while [ "${EPOCHREALTIME/./}" -lt "$end" ]; do
            [ -n "$(suite_procs "$id")" ] || return 0
            sleep 0.1
        done
    done
    return 0
}
