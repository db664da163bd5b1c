# local_slurm.sh: a one-node Slurm cluster on localhost, for tests/slurm and
# tools/slurm_speedup.sh. Source it, then:
#
#   start_local_slurm CPUS [SLURM.CONF LINE...] || echo "cannot start: $local_slurm_why"
#   ... sbatch, squeue, sim --slurm (SLURM_CONF is exported) ...
#   stop_local_slurm
#
# start_local_slurm starts munged (its own generated key and socket),
# slurmctld and slurmd (node "localhost" with CPUS CPUs whatever the machine
# has: SlurmdParameters=config_overrides), from a slurm.conf in a new short
# directory under /tmp (Unix socket paths are limited to 108 bytes), on two
# free ports, with no accounting (ProctrackType=proctrack/linuxproc,
# TaskPlugin=task/none, select/cons_tres with CR_CPU, so each one-CPU array
# task takes one slot). It needs root and Debian's slurm-wlm and munge; it
# returns 1 with the reason in local_slurm_why when they are missing or a
# daemon does not come up, having stopped what it started.
#
# stop_local_slurm cancels every job of that cluster, waits for them, stops
# slurmd, slurmctld and munged through their pid files (SIGKILL after 10 s)
# and removes the directory. It stops only what start_local_slurm started.

local_slurm_base=""
local_slurm_why=""

stop_local_slurm() {
  [ -n "$local_slurm_base" ] || return 0
  local base="$local_slurm_base" f pid
  if [ -f "$base/slurm.conf" ] && [ -f "$base/slurmctld.pid" ]; then
    SLURM_CONF="$base/slurm.conf" scancel --user="$(id -u)" >/dev/null 2>&1
    for _ in $(seq 1 50); do
      [ -z "$(SLURM_CONF="$base/slurm.conf" squeue -h 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  for f in slurmd slurmctld munged; do
    [ -f "$base/$f.pid" ] || continue
    pid=$(cat "$base/$f.pid")
    [ -n "$pid" ] || continue
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
  done
  rm -rf "$base"
  local_slurm_base=""
}

# _local_slurm_fail REASON: stop what was started, record why, return 1.
_local_slurm_fail() {
  local_slurm_why="$1"
  stop_local_slurm
  return 1
}

start_local_slurm() {
  local cpus="${1:-4}" b
  [ $# -gt 0 ] && shift
  local extra=("$@")  # more slurm.conf lines, e.g. SchedulerParameters=...
  local_slurm_why=""
  if [ "$(id -u)" -ne 0 ]; then
    local_slurm_why="not root (slurmd runs the jobs and munged needs its own key; run as root)"
    return 1
  fi
  case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH="$PATH:/usr/sbin:/sbin" ;; esac
  export PATH
  for b in munged munge unmunge slurmctld slurmd sbatch squeue scancel sinfo python3; do
    if ! command -v "$b" >/dev/null; then
      local_slurm_why="$b not found (tools/setup.sh installs slurm-wlm, slurm-client and munge)"
      return 1
    fi
  done
  local base
  base=$(mktemp -d /tmp/sk-slurm.XXXXXX) || { local_slurm_why="mktemp failed"; return 1; }
  local_slurm_base="$base"
  chmod 755 "$base"
  mkdir -p "$base/munge" "$base/state" "$base/spool" "$base/log"
  dd if=/dev/urandom of="$base/munge/munge.key" bs=1024 count=1 2>/dev/null
  chmod 400 "$base/munge/munge.key"
  munged --force --socket="$base/munge/sock" --key-file="$base/munge/munge.key" \
    --log-file="$base/log/munged.log" --pid-file="$base/munged.pid" \
    --seed-file="$base/munge/seed" >"$base/log/munged.out" 2>&1 ||
    { _local_slurm_fail "munged did not start: $(tail -n 3 "$base/log/munged.out" "$base/log/munged.log" 2>/dev/null | tr '\n' ' ')"; return 1; }
  munge -S "$base/munge/sock" -n </dev/null | unmunge -S "$base/munge/sock" >/dev/null 2>&1 ||
    { _local_slurm_fail "munge cannot encode and decode a credential: $(tail -n 3 "$base/log/munged.log" | tr '\n' ' ')"; return 1; }
  local ctld_port slurmd_port
  read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
  cat >"$base/slurm.conf" <<CONF
# A one-node cluster on localhost (tests/slurm/local_slurm.sh).
ClusterName=sktest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$base/munge/sock
CredType=cred/munge
StateSaveLocation=$base/state
SlurmdSpoolDir=$base/spool
SlurmctldPidFile=$base/slurmctld.pid
SlurmdPidFile=$base/slurmd.pid
SlurmctldLogFile=$base/log/slurmctld.log
SlurmdLogFile=$base/log/slurmd.log
PlugStackConfig=$base/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
KillWait=5
MailProg=/bin/true
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  for b in "${extra[@]}"; do echo "$b" >>"$base/slurm.conf"; done
  : >"$base/plugstack.conf"
  export SLURM_CONF="$base/slurm.conf"
  slurmctld -f "$SLURM_CONF" >"$base/log/slurmctld.out" 2>&1 ||
    { _local_slurm_fail "slurmctld did not start: $(tail -n 5 "$base/log/slurmctld.out" "$base/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"; return 1; }
  slurmd -f "$SLURM_CONF" -N localhost >"$base/log/slurmd.out" 2>&1 ||
    { _local_slurm_fail "slurmd did not start: $(tail -n 5 "$base/log/slurmd.out" "$base/log/slurmd.log" 2>/dev/null | tr '\n' ' ')"; return 1; }
  local state=""
  for _ in $(seq 1 150); do
    state=$(sinfo -h -n localhost -o %t 2>/dev/null)
    [ "$state" = "idle" ] && break
    sleep 0.2
  done
  if [ "$state" != "idle" ]; then
    _local_slurm_fail "the node is '$state', not idle, 30 s after the start: $(tail -n 5 "$base/log/slurmctld.log" "$base/log/slurmd.log" 2>/dev/null | tr '\n' ' ')"
    return 1
  fi
  local_slurm_ports="$ctld_port $slurmd_port"
  return 0
}
