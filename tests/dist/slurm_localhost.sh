#!/bin/bash
# A one-node SLURM cluster on this machine, for testing the sbatch scripts
# of examples/cluster/ (tests/dist/test_slurm.py, DLBOOK_SLURM_TEST=1).
#
#   sudo tests/dist/slurm_localhost.sh           # set up and start
#   sudo tests/dist/slurm_localhost.sh stop      # stop the daemons
#
# Debian/Ubuntu: installs slurm-wlm and munge with apt-get when missing,
# starts munged, writes /etc/slurm/slurm.conf for a single node named
# after this host (8 CPUs announced, whatever the machine has, so the
# example scripts' --ntasks/--cpus-per-task fit), starts slurmctld and
# slurmd, and waits until the node is idle.  Needs root; no systemd.
set -euo pipefail

CONF_DIR=/etc/slurm
CPUS=${SLURM_TEST_CPUS:-8}
NODE=$(hostname -s)

stop() {
    for daemon in slurmd slurmctld munged; do
        if [ -f "/run/dlbook-$daemon.pid" ]; then
            kill "$(cat "/run/dlbook-$daemon.pid")" 2>/dev/null || true
            rm -f "/run/dlbook-$daemon.pid"
        fi
    done
}

if [ "${1:-}" = stop ]; then
    stop
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "slurm_localhost.sh: run as root (sudo $0)" >&2
    exit 1
fi
start=$(date +%s)

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends slurm-wlm munge \
        >/dev/null
fi

# munge: the authentication slurm uses between its daemons and commands
if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom bs=1 count=128 of=/etc/munge/munge.key 2>/dev/null
fi
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged --force
    sleep 0.5
    pgrep -u munge -x munged >/run/dlbook-munged.pid
fi

# slurm: one node, one partition, no cgroups, root as the slurm user
mkdir -p "$CONF_DIR" /var/spool/slurmctld /var/spool/slurmd \
    /var/log/slurm
cat >"$CONF_DIR/slurm.conf" <<EOF
ClusterName=dlbook-test
SlurmctldHost=$NODE
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/dlbook-slurmctld.pid
SlurmdPidFile=/run/dlbook-slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=pmi2
SchedulerType=sched/backfill
NodeName=$NODE CPUs=$CPUS State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
stop_slurm() {
    for daemon in slurmd slurmctld; do
        if [ -f "/run/dlbook-$daemon.pid" ]; then
            kill "$(cat "/run/dlbook-$daemon.pid")" 2>/dev/null || true
        fi
    done
}
stop_slurm
sleep 0.5
/usr/sbin/slurmctld -i
/usr/sbin/slurmd

for _ in $(seq 60); do
    if sinfo -h -n "$NODE" -o '%t' 2>/dev/null | grep -qx idle; then
        echo "slurm_localhost.sh: node $NODE idle after" \
             "$(( $(date +%s) - start )) s"
        exit 0
    fi
    sleep 1
done
echo "slurm_localhost.sh: the node did not become idle; logs:" >&2
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2
exit 1
