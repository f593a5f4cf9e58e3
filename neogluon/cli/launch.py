"""``neogluon launch -n N [--launcher local|ssh] [-H HOSTFILE] SCRIPT [ARGS...]``: start N workers.

The counterpart of MXNet's ``tools/launch.py`` for the distributed KVStores of
:mod:`neogluon.kvstore.dist` (there are no servers or scheduler to start: the workers
all-reduce). Each worker runs ``neogluon run SCRIPT ARGS...`` (so ``import mxnet`` works)
with torch.distributed's variables (``MASTER_ADDR``, ``MASTER_PORT``, ``WORLD_SIZE``,
``RANK``, ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``) and MXNet's (``DMLC_ROLE=worker``,
``DMLC_PS_ROOT_URI``, ``DMLC_PS_ROOT_PORT``, ``DMLC_NUM_WORKER``, ``DMLC_NUM_SERVER``,
``DMLC_WORKER_ID``) set, and ``OMP_NUM_THREADS=1`` unless it is set, as torchrun does.
Every line a worker prints is printed with its rank as prefix (``[1] ...``), on stdout or
stderr as the worker wrote it. When a worker fails, the others get ``--grace`` seconds to
report the failure themselves (a distributed KVStore raises MXNetError naming the dead
rank) and are then terminated; the command exits with the failed worker's code.

With ``--launcher ssh`` rank ``r`` runs on host ``r % len(hosts)`` of the host file (one
host name or address per line, ``#`` comments), through ``ssh HOST 'cd CWD && env ...'``:
the script, Python and neogluon must be at the same paths on every host, and the first
host is the rendezvous address unless ``--master-addr`` says otherwise.
"""
import argparse
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time

from .errors import CLIError


def add_arguments(parser):
    parser.add_argument("-n", "--num-workers", type=int, required=True, help="number of worker processes")
    parser.add_argument("--launcher", choices=("local", "ssh"), default="local",
                        help="start the workers on this machine (local) or over ssh on the hosts of -H")
    parser.add_argument("-H", "--hostfile", help="host file for --launcher ssh: one host per line")
    parser.add_argument("--master-addr", help="rendezvous address (default 127.0.0.1, or the first host with ssh)")
    parser.add_argument("--port", type=int, default=0,
                        help="rendezvous port (default: a free port locally, 29500 with ssh)")
    parser.add_argument("--grace", type=float, default=3.0,
                        help="seconds the other workers get to exit after one fails (default 3)")
    parser.add_argument("script", help="the training script each worker runs")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed on to the script")


def free_port():
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def read_hostfile(path):
    """The hosts of a host file (one per line, blank lines and ``#`` comments skipped)."""
    if not path:
        raise CLIError("--launcher ssh needs a host file (-H HOSTFILE)")
    if not os.path.exists(path):
        raise CLIError("no such host file: %s" % path)
    with open(path) as f:
        hosts = [line.split("#", 1)[0].strip() for line in f]
    hosts = [h for h in hosts if h]
    if not hosts:
        raise CLIError("host file %s lists no hosts" % path)
    return hosts


def worker_env(rank, world, addr, port, local_rank, local_world):
    """The variables one worker gets: torch.distributed's and MXNet's ``DMLC_*``."""
    env = {"MASTER_ADDR": addr, "MASTER_PORT": str(port), "WORLD_SIZE": str(world), "RANK": str(rank),
           "LOCAL_RANK": str(local_rank), "LOCAL_WORLD_SIZE": str(local_world),
           "DMLC_ROLE": "worker", "DMLC_PS_ROOT_URI": addr, "DMLC_PS_ROOT_PORT": str(port),
           "DMLC_NUM_WORKER": str(world), "DMLC_NUM_SERVER": "0", "DMLC_WORKER_ID": str(rank)}
    if "OMP_NUM_THREADS" not in os.environ and local_world > 1:
        env["OMP_NUM_THREADS"] = "1"
    return env


def worker_commands(args):
    """``[(rank, argv, extra_env)]`` for every worker."""
    world = args.num_workers
    if world < 1:
        raise CLIError("-n must be at least 1, got %d" % world)
    if not os.path.exists(args.script):
        raise CLIError("no such script: %s" % args.script)
    local = [sys.executable, "-u", "-m", "neogluon", "run", args.script] + list(args.args)
    if args.launcher == "local":
        addr = args.master_addr or "127.0.0.1"
        port = args.port or free_port()
        return [(r, local, worker_env(r, world, addr, port, r, world)) for r in range(world)]
    hosts = read_hostfile(args.hostfile)
    addr = args.master_addr or hosts[0]
    port = args.port or 29500  # a free port here says nothing about the first host: torch's default
    commands = []
    for rank in range(world):
        host = hosts[rank % len(hosts)]
        ranks_on_host = [r for r in range(world) if hosts[r % len(hosts)] == host]
        env = worker_env(rank, world, addr, port, ranks_on_host.index(rank), len(ranks_on_host))
        remote = "cd %s && env %s %s" % (shlex.quote(os.getcwd()),
                                         " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in sorted(env.items())),
                                         " ".join(shlex.quote(a) for a in local))
        commands.append((rank, ["ssh", "-o", "BatchMode=yes", host, remote], {}))
    return commands


def _pump(stream, prefix, out, lock):
    for line in iter(stream.readline, b""):
        text = line.decode("utf-8", "replace")
        with lock:
            out.write("%s%s" % (prefix, text if text.endswith("\n") else text + "\n"))
            out.flush()
    stream.close()


def _stop(procs, grace):
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(p.poll() is None for p in procs):
        time.sleep(0.05)
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(p.poll() is None for p in procs):
        time.sleep(0.05)
    for p in procs:
        if p.poll() is None:
            p.kill()


def run(args):
    commands = worker_commands(args)
    lock = threading.Lock()
    procs, pumps = [], []
    for rank, argv, extra in commands:
        env = dict(os.environ)
        env.update(extra)
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        procs.append(proc)
        for stream, out in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr)):
            pump = threading.Thread(target=_pump, args=(stream, "[%d] " % rank, out, lock), daemon=True)
            pump.start()
            pumps.append(pump)
    code = 0
    try:
        while True:
            failed = [(r, p.returncode) for r, p in enumerate(procs) if p.poll() not in (None, 0)]
            if failed:
                rank, code = failed[0]
                with lock:
                    print("neogluon launch: worker rank %d exited with code %d; stopping the other workers"
                          % (rank, code), file=sys.stderr, flush=True)
                _stop(procs, args.grace)
                break
            if all(p.poll() == 0 for p in procs):
                break
            time.sleep(0.05)
    except KeyboardInterrupt:
        _stop(procs, 0)
        raise
    for pump in pumps:
        pump.join(timeout=5)
    return code if code > 0 else (1 if code else 0)
