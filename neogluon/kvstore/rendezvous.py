"""Joining the torch.distributed process group behind the distributed KVStores.

MXNet's workers find each other through ps-lite's scheduler, from ``DMLC_PS_ROOT_URI``,
``DMLC_PS_ROOT_PORT`` and ``DMLC_NUM_WORKER`` (MXNet raises when they are missing). Here
the same job is done by torch.distributed's TCP rendezvous, configured by either family of
variables (torch.distributed's win when both are set):

========================  ==========================================  ====================
what                      torchrun / torch.distributed                MXNet (``DMLC_*``)
========================  ==========================================  ====================
rendezvous host           ``MASTER_ADDR``                             ``DMLC_PS_ROOT_URI``
rendezvous port           ``MASTER_PORT``                             ``DMLC_PS_ROOT_PORT``
number of workers         ``WORLD_SIZE``                              ``DMLC_NUM_WORKER``
this worker's rank        ``RANK``                                    ``DMLC_WORKER_ID``
========================  ==========================================  ====================

Under torchrun (``torchrun --nproc-per-node N -m neogluon run script.py``, or
``torchrun script.py`` for a script that imports neogluon) the workers join torchrun's own
rendezvous store. A group already initialized by the script (``torch.distributed.init_process_group``) is
used as it is. The backend is gloo (CPU tensors), or NCCL when CUDA is available
(``NEOGLUON_DIST_BACKEND`` overrides). ``NEOGLUON_DIST_TIMEOUT`` (seconds, default 300)
bounds the rendezvous and every collective, so an unreachable address, a wrong world size
or a worker that stopped answering becomes an MXNetError instead of a hang.
"""
import datetime
import os
import socket
import time

import torch
import torch.distributed as dist

from ..base import MXNetError

__all__ = ["ensure_process_group", "backend_device", "peers", "dead_peers", "timeout_seconds"]

_VARIABLES = (("MASTER_ADDR", "DMLC_PS_ROOT_URI"), ("MASTER_PORT", "DMLC_PS_ROOT_PORT"),
              ("WORLD_SIZE", "DMLC_NUM_WORKER"), ("RANK", "DMLC_WORKER_ID"))
_PEERS = []  # (hostname, pid) of every rank, gathered once after the rendezvous


def timeout_seconds():
    """The rendezvous and collective timeout, from ``NEOGLUON_DIST_TIMEOUT`` (default 300 s)."""
    value = os.environ.get("NEOGLUON_DIST_TIMEOUT", "300")
    try:
        seconds = float(value)
    except ValueError:
        raise MXNetError("NEOGLUON_DIST_TIMEOUT=%r is not a number of seconds" % value) from None
    if seconds <= 0:
        raise MXNetError("NEOGLUON_DIST_TIMEOUT=%r must be positive" % value)
    return seconds


def _setting(torch_name, dmlc_name):
    value = os.environ.get(torch_name) or os.environ.get(dmlc_name)
    return value if value not in ("", None) else None


def _read_environment(kvtype):
    values = {torch_name: _setting(torch_name, dmlc_name) for torch_name, dmlc_name in _VARIABLES}
    missing = ["%s (or %s)" % pair for pair in _VARIABLES if values[pair[0]] is None]
    if missing:
        raise MXNetError("mx.kv.create(%r): the distributed KVStore needs the environment variable(s) %s; start "
                         "the workers with 'neogluon launch -n N script.py' or torchrun, which set them"
                         % (kvtype, ", ".join(missing)))
    try:
        port, world, rank = int(values["MASTER_PORT"]), int(values["WORLD_SIZE"]), int(values["RANK"])
    except ValueError:
        raise MXNetError("mx.kv.create(%r): MASTER_PORT=%r, WORLD_SIZE=%r and RANK=%r must be integers"
                         % (kvtype, values["MASTER_PORT"], values["WORLD_SIZE"], values["RANK"])) from None
    if world < 1 or not 0 <= rank < world:
        raise MXNetError("mx.kv.create(%r): RANK=%d is not in [0, WORLD_SIZE=%d)" % (kvtype, rank, world))
    return values["MASTER_ADDR"], port, world, rank


def _backend():
    backend = os.environ.get("NEOGLUON_DIST_BACKEND")
    if backend:
        return backend
    return "nccl" if torch.cuda.is_available() else "gloo"


def ensure_process_group(kvtype):
    """Join (once per process) the group described by the environment; ``(rank, world_size)``."""
    if not dist.is_available():
        raise MXNetError("mx.kv.create(%r): this torch build has no torch.distributed" % kvtype)
    if not dist.is_initialized():
        addr, port, world, rank = _read_environment(kvtype)
        seconds = timeout_seconds()
        try:
            # env:// (the DMLC_* values mapped onto torch's names) so that under torchrun the
            # workers join its agent's store instead of starting another on MASTER_PORT
            os.environ.update(MASTER_ADDR=addr, MASTER_PORT=str(port), WORLD_SIZE=str(world), RANK=str(rank))
            dist.init_process_group(_backend(), init_method="env://", rank=rank, world_size=world,
                                    timeout=datetime.timedelta(seconds=seconds))
        except Exception as err:  # torch raises DistStoreError, RuntimeError, ValueError, socket errors
            raise MXNetError("mx.kv.create(%r): rank %d could not join the %d workers at %s:%d within %gs "
                             "(is the address reachable, the world size right and every worker started?): %s"
                             % (kvtype, rank, world, addr, port, seconds, str(err).strip().splitlines()[0]
                                if str(err).strip() else type(err).__name__)) from err
    if not _PEERS:
        gathered = [None] * dist.get_world_size()
        dist.all_gather_object(gathered, (socket.gethostname(), os.getpid()))
        _PEERS.extend(gathered)
    return dist.get_rank(), dist.get_world_size()


def backend_device(tensor):
    """Where a collective on ``tensor`` runs: its CUDA device under NCCL, the CPU otherwise."""
    if dist.get_backend() == "nccl":
        return tensor.device if tensor.is_cuda else torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def peers():
    """``[(hostname, pid)]`` of every rank."""
    return list(_PEERS)


def _exited(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:  # a killed worker whose parent has not reaped it yet is a zombie
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return False


def dead_peers(wait=1.0):
    """The ranks on this host whose process has exited (others cannot be checked from here);
    a connection closed by a dying peer can come first, so this waits up to ``wait`` seconds."""
    host = socket.gethostname()
    local = [(rank, pid) for rank, (peer_host, pid) in enumerate(_PEERS) if peer_host == host and pid != os.getpid()]
    deadline = time.monotonic() + wait
    while True:
        dead = [rank for rank, pid in local if _exited(pid)]
        if dead or time.monotonic() >= deadline:
            return dead
        time.sleep(0.05)
