#!/bin/sh
# A cgroup tree the bot sandbox can write, inside a worker container (docker-compose.yml,
# before `arena setup`; docs/sandbox.md, "In a container").
#
# The sandbox gives each bot a memory, pids and cpu cgroup of its own (memory over the
# whole sandbox, eviction of what the bot cached when it stops, one core's quota, the
# weight of one task on its turn). Docker mounts a container's cgroup tree read-only
# unless the container is privileged, so the sandbox would find the controllers and then
# fail to create a group. This makes the container's own part of the tree writable
# (its mount only, never the host's superblock: a bind remount) and, on cgroup v2, moves
# every process of the container into a leaf group `init`, since v2 hands controllers to
# child groups only from a group with no process of its own. The bots' groups then sit
# under the container's, inside its memory and CPU limits.
#
# Needs what the worker service has anyway: CAP_SYS_ADMIN and no AppArmor confinement.
# Any failure stops the container with the reason: a worker that took jobs without its
# bots' cgroups would fail every launch.
set -eu

root=${ARENA_CGROUP_ROOT:-/sys/fs/cgroup}

say() {
    echo "container-cgroups: $*" >&2
}

writable() {
    # remount one mount point read-write; a no-op where it already is
    if grep -qs " $1 [^ ]* rw[, ]" /proc/self/mounts; then
        return 0
    fi
    mount -o remount,bind,rw "$1" || {
        say "cannot remount $1 read-write (the worker needs cap_add SYS_ADMIN and" \
            "security_opt apparmor=unconfined: docker-compose.yml)"
        exit 1
    }
}

if [ "$(id -u)" != 0 ]; then
    say "not root: the sandbox gives bots no cgroup here (nothing to do)"
    exit 0
fi

if [ -f "$root/cgroup.controllers" ]; then
    # cgroup v2: one tree, the container's own (its cgroup namespace)
    writable "$root"
    wanted=""
    for controller in memory pids cpu; do
        if grep -qw "$controller" "$root/cgroup.controllers"; then
            wanted="$wanted +$controller"
        fi
    done
    if [ -z "$wanted" ]; then
        say "no memory, pids or cpu controller delegated to this container: bots get rlimits only"
        exit 0
    fi
    mkdir -p "$root/init"
    # Everything into the leaf, then the controllers for the children. A process that
    # joins meanwhile (a `docker exec`, a health check) makes the write fail: try again.
    tries=0
    until {
        for pid in $(cat "$root/cgroup.procs"); do
            echo "$pid" > "$root/init/cgroup.procs" 2>/dev/null || true
        done
        # shellcheck disable=SC2086  # one word per controller
        echo $wanted > "$root/cgroup.subtree_control"
    } 2>/dev/null; do
        tries=$((tries + 1))
        if [ "$tries" -ge 20 ]; then
            say "cannot enable$wanted for child groups of $root: $(cat "$root/cgroup.procs" | wc -l) processes stay in it"
            exit 1
        fi
        sleep 0.2
    done
    say "cgroup v2:$wanted for the bots' groups under $root (the container's processes in $root/init)"
else
    # cgroup v1: one mount per controller (memory, pids, cpu,cpuacct...), each the
    # container's own group of the host's hierarchy
    found=0
    for point in $(awk '$3 == "cgroup" { print $2 }' /proc/self/mounts); do
        case "$point" in
            "$root"/*) writable "$point"; found=1 ;;
        esac
    done
    if [ "$found" = 0 ]; then
        say "no cgroup mounted under $root: bots get rlimits only"
        exit 0
    fi
    say "cgroup v1: the controllers under $root are writable for the bots' groups"
fi
