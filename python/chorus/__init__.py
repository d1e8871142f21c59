"""chorus -- Chorus collectives for numpy arrays and CPU torch tensors.

Standard library only (ctypes): no compiled extension, nothing to pip
install. Put the repository's ``python/`` folder on ``PYTHONPATH`` and::

    import chorus
    comm = chorus.Comm.from_env()        # torchrun, mpirun or srun variables
    x = numpy.ones(1 << 20, numpy.float32)
    comm.allreduce(x)                    # in place; comm.allreduce(x, y) out of place

Buffers are used where they lie (zero copy, through their data pointer):
they must be C-contiguous, on the CPU, and of one of the ten types Chorus
reduces (int8, uint8, int32, uint32, int64, uint64, float16, bfloat16,
float32, float64). Anything else raises ``TypeError`` or ``ValueError``
saying why; a call the library refuses raises ``ChorusError`` with the
library's own message. A dead peer makes the call fail within
``CHORUS_TIMEOUT`` seconds (default 300) on the surviving ranks.

At import the package loads libchorus (see ``chorus._lib`` for where it
looks) and logs one line, as NCCL's Python wrappers do, so that a wrong copy
shows at once: ``chorus 0.1.0 from /path/libchorus.so (isa avx2, cuda off)``.
It is logged at INFO on the ``chorus`` logger, to stderr unless the logger
has handlers of its own; ``CHORUS_DEBUG=WARN`` or ``NONE`` silences it.
"""

import contextlib
import ctypes
import logging
import os
import threading

from . import _lib
from ._lib import LoadError, UniqueId

__version__ = "0.1.0"
__all__ = ["Comm", "ChorusError", "LoadError", "get_unique_id", "group", "load", "library_path", "build_info",
           "DTYPES", "OPS"]

# The enums of include/chorus.h.
COLLECTIVES = {"allreduce": 0, "broadcast": 1, "reduce": 2, "allgather": 3, "reducescatter": 4, "alltoall": 5}
DTYPES = ("int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "bfloat16", "float32", "float64")
OPS = ("sum", "prod", "min", "max", "avg")
_DTYPE_CODE = {name: code for code, name in enumerate(DTYPES)}

log = logging.getLogger("chorus")

_lib_handle = None
_lib_path = None
_lib_info = None
_load_error = None
_open_comms = 0


class ChorusError(RuntimeError):
    """A call libchorus refused or that failed; .result is the chorus_result_t name
    ("remote_error", "timeout", ...), str() the library's message."""

    def __init__(self, call, code, message):
        self.call, self.code = call, code
        self.result = _result_name(code)
        super().__init__(f"{call}: {message}")


def _result_name(code):
    names = ("success", "invalid_argument", "invalid_usage", "script_error", "verify_failed", "system_error",
             "out_of_memory", "remote_error", "timeout", "internal_error", "in_progress")
    return names[code] if 0 <= code < len(names) else f"result {code}"


def _setup_logging():
    if log.handlers or logging.getLogger().handlers:
        return
    level = os.environ.get("CHORUS_DEBUG", "").upper()
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.WARNING if level in ("WARN", "WARNING", "NONE") else logging.INFO)
    log.propagate = False


def load(path=None):
    """Load libchorus from path (else CHORUS_LIBRARY, the build folder, the system path) and log
    which one. Called at import; call it again with a path to use another copy, before any
    communicator exists. Returns the path loaded."""
    global _lib_handle, _lib_path, _lib_info, _load_error
    if path is None and _lib_handle is not None:
        return _lib_path
    if _open_comms:
        raise ChorusError("chorus.load", 2, f"{_open_comms} communicator(s) of {_lib_path} are open; "
                                            "destroy them before loading another libchorus")
    lib, real, why, have = _lib.open_library(__version__, path)
    _lib_handle, _lib_path, _load_error = lib, real, None
    _lib_info = dict(w.split("=", 1) for w in lib.chorus_build_info().decode().split() if "=" in w)
    log.info("chorus %s from %s (isa %s, cuda %s)", have, real, _lib_info.get("isa", "?"), _lib_info.get("cuda", "?"))
    return real


def _c():
    if _lib_handle is None:
        if _load_error is not None:
            raise _load_error
        load()
    return _lib_handle


def library_path():
    """The libchorus file in use."""
    _c()
    return _lib_path


def build_info():
    """What the library was built with: {"isa": "avx2", "cuda": "off", "transports": "shm,socket"}."""
    _c()
    return dict(_lib_info)


def _check(call, res):
    if res != 0:
        lib = _c()
        detail = lib.chorus_last_error().decode(errors="replace")
        raise ChorusError(call, res, detail or lib.chorus_result_string(res).decode())


def get_unique_id():
    """A new unique id (bytes) for Comm(rank, size, uid): make it once, on one rank, which then
    serves as the root, and hand the same bytes to every rank."""
    uid = UniqueId()
    _check("chorus_get_unique_id", _c().chorus_get_unique_id(ctypes.byref(uid)))
    return bytes(uid.internal)


# --- buffers -------------------------------------------------------------

_TORCH_KIND = {"torch.int8": "int8", "torch.uint8": "uint8", "torch.int32": "int32", "torch.int64": "int64",
               "torch.float16": "float16", "torch.bfloat16": "bfloat16", "torch.float32": "float32",
               "torch.float64": "float64"}


class _Buf:
    __slots__ = ("obj", "ptr", "count", "dtype", "nbytes")


def _buffer(obj, what, writable):
    """Pointer, element count and Chorus type of a numpy array or CPU torch tensor; raises
    TypeError or ValueError naming `what` when Chorus cannot use it in place."""
    b = _Buf()
    b.obj = obj
    mod = type(obj).__module__.split(".")[0]
    if mod == "torch" and hasattr(obj, "data_ptr"):
        dtype = _TORCH_KIND.get(str(obj.dtype))
        if dtype is None:
            raise TypeError(f"{what}: torch dtype {obj.dtype} is not one Chorus reduces (one of "
                            f"{', '.join('torch.' + k.split('.')[1] for k in _TORCH_KIND)})")
        if obj.device.type != "cpu":
            raise ValueError(f"{what}: the tensor is on {obj.device}; the Python package takes CPU tensors")
        if not obj.is_contiguous():
            raise ValueError(f"{what}: the tensor is not contiguous (strides {tuple(obj.stride())}); "
                             f"pass x.contiguous() and copy the result back")
        b.ptr, b.count = obj.data_ptr(), obj.numel()
    elif mod == "numpy" and hasattr(obj, "__array_interface__"):
        dtype = obj.dtype.name if obj.dtype.name in _DTYPE_CODE else None  # numpy names are Chorus's
        if dtype is None or obj.dtype.byteorder == ">":
            raise TypeError(f"{what}: numpy dtype {obj.dtype} is not one Chorus reduces (native-endian "
                            f"{', '.join(DTYPES)})")
        if not obj.flags.c_contiguous:
            raise ValueError(f"{what}: the array is not C-contiguous (strides {obj.strides}); "
                             f"pass numpy.ascontiguousarray(x) and copy the result back")
        if writable and not obj.flags.writeable:
            raise ValueError(f"{what}: the array is read-only")
        b.ptr, b.count = obj.__array_interface__["data"][0], obj.size
    else:
        raise TypeError(f"{what}: a {type(obj).__module__}.{type(obj).__qualname__} is neither a numpy array "
                        f"nor a torch tensor")
    b.dtype = dtype
    b.nbytes = b.count * _c().chorus_dtype_size(_DTYPE_CODE[dtype])
    return b


def _op_code(op):
    code = ctypes.c_int()
    if not isinstance(op, str) or _c().chorus_redop_parse(op.encode(), ctypes.byref(code)) != 0:
        raise ValueError(f"op {op!r} is not a reduction (one of {', '.join(OPS)})")
    return code.value


# --- groups --------------------------------------------------------------

_held = threading.local()  # buffers of the calls a group holds, kept alive until its end


@contextlib.contextmanager
def group():
    """Calls made inside run together at the end of the block: every send and receive of a
    communicator at once (no deadlock whatever the pattern), and calls on several communicators
    of this process in parallel (so one thread can drive all ranks of Comm.all)."""
    _check("chorus_group_start", _c().chorus_group_start())
    depth = getattr(_held, "depth", 0)
    if depth == 0:
        _held.bufs = []
    _held.depth = depth + 1
    try:
        yield
    finally:
        _held.depth -= 1
        try:
            _check("chorus_group_end", _c().chorus_group_end())
        finally:
            if _held.depth == 0:
                _held.bufs = []


def _in_group():
    return getattr(_held, "depth", 0) > 0


# --- communicators -------------------------------------------------------

class Comm:
    """One rank's communicator. Make it with Comm(rank, size, uid), Comm.from_env() or
    Comm.all(n); release it with destroy() (or a with block)."""

    def __init__(self, rank, size, unique_id):
        if not isinstance(unique_id, (bytes, bytearray)) or len(unique_id) != _lib.UNIQUE_ID_BYTES:
            raise TypeError(f"unique_id: {_lib.UNIQUE_ID_BYTES} bytes from chorus.get_unique_id() expected")
        uid = UniqueId()
        uid.internal = bytes(unique_id)
        handle = ctypes.c_void_p()
        _check("chorus_comm_init_rank", _c().chorus_comm_init_rank(ctypes.byref(handle), int(size), uid, int(rank)))
        self._adopt(handle)

    @classmethod
    def from_env(cls):
        """Join the job the launcher started: torchrun (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT),
        mpirun (OMPI_COMM_WORLD_*) or srun (SLURM_*), as chorus_comm_init_env reads them."""
        handle = ctypes.c_void_p()
        _check("chorus_comm_init_env", _c().chorus_comm_init_env(ctypes.byref(handle)))
        self = cls.__new__(cls)
        self._adopt(handle)
        return self

    @classmethod
    def all(cls, nranks):
        """All nranks ranks in this process (element i is rank i): drive them inside one
        chorus.group() block, or one thread each."""
        handles = (ctypes.c_void_p * int(nranks))()
        _check("chorus_comm_init_all", _c().chorus_comm_init_all(handles, int(nranks)))
        comms = []
        for h in handles:
            c = cls.__new__(cls)
            c._adopt(ctypes.c_void_p(h))
            comms.append(c)
        return comms

    def _adopt(self, handle):
        global _open_comms
        self._h = handle
        _open_comms += 1
        lib, out = _c(), ctypes.c_int()
        _check("chorus_comm_user_rank", lib.chorus_comm_user_rank(handle, ctypes.byref(out)))
        self.rank = out.value
        _check("chorus_comm_count", lib.chorus_comm_count(handle, ctypes.byref(out)))
        self.size = out.value
        _check("chorus_comm_nhosts", lib.chorus_comm_nhosts(handle, ctypes.byref(out)))
        self.nhosts = out.value

    def __repr__(self):
        state = "destroyed" if self._h is None else f"{self.nhosts} host(s)"
        return f"<chorus.Comm rank {self.rank} of {self.size}, {state}>"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()

    def _handle(self):
        if self._h is None:
            raise ChorusError("chorus", 2, f"rank {self.rank}'s communicator was destroyed")
        return self._h

    def _release(self, fn):
        global _open_comms
        if self._h is None:
            return
        h, self._h = self._h, None
        _open_comms -= 1
        _check(fn, getattr(_c(), fn)(h))

    def destroy(self):
        """Wait for the calls in flight, then release the communicator."""
        self._release("chorus_comm_destroy")

    def abort(self):
        """Stop every call in flight (they and the peers' fail), then release the communicator."""
        self._release("chorus_comm_abort")

    def error(self):
        """Why the communicator failed, "" when it has not."""
        return _c().chorus_comm_error_string(self._handle()).decode(errors="replace")

    # The calls -----------------------------------------------------------

    def _coll(self, name, send, recv, count, op="sum", root=0):
        code = _DTYPE_CODE[send.dtype]
        if recv.dtype != send.dtype:
            raise TypeError(f"{name}: sendbuf is {send.dtype} but recvbuf is {recv.dtype}")
        if not 0 <= root < self.size:
            raise ValueError(f"{name}: root {root} is not a rank of this communicator (0..{self.size - 1})")
        if _in_group():
            _held.bufs += [send.obj, recv.obj]
        _check(f"chorus {name}", _c().chorus_run_collective(COLLECTIVES[name], send.ptr, recv.ptr, count, code,
                                                            _op_code(op), root, self._handle(), None))
        return recv.obj

    def _same_size(self, name, send, recv):
        if recv.count != send.count:
            raise ValueError(f"{name}: recvbuf has {recv.count} elements, sendbuf {send.count}; they must match")

    def allreduce(self, sendbuf, recvbuf=None, op="sum"):
        """Reduce sendbuf over all ranks into recvbuf on every rank (in place when recvbuf is None
        or sendbuf). Returns recvbuf."""
        s = _buffer(sendbuf, "allreduce sendbuf", recvbuf is None)
        r = s if recvbuf is None else _buffer(recvbuf, "allreduce recvbuf", True)
        self._same_size("allreduce", s, r)
        return self._coll("allreduce", s, r, s.count, op)

    def broadcast(self, buf, recvbuf=None, root=0):
        """The root's buf to every rank's recvbuf (buf itself when recvbuf is None)."""
        s = _buffer(buf, "broadcast buf", recvbuf is None)
        r = s if recvbuf is None else _buffer(recvbuf, "broadcast recvbuf", True)
        self._same_size("broadcast", s, r)
        return self._coll("broadcast", s, r, s.count, root=root)

    def reduce(self, sendbuf, recvbuf=None, op="sum", root=0):
        """Reduce sendbuf over all ranks into the root's recvbuf (in place when None); recvbuf is
        only written at the root."""
        s = _buffer(sendbuf, "reduce sendbuf", recvbuf is None)
        r = s if recvbuf is None else _buffer(recvbuf, "reduce recvbuf", True)
        self._same_size("reduce", s, r)
        return self._coll("reduce", s, r, s.count, op, root)

    def allgather(self, sendbuf, recvbuf):
        """Every rank's sendbuf, in rank order, into recvbuf (size x the elements of sendbuf). In
        place: pass recvbuf[rank * n:(rank + 1) * n] as sendbuf."""
        s = _buffer(sendbuf, "allgather sendbuf", False)
        r = _buffer(recvbuf, "allgather recvbuf", True)
        if r.count != self.size * s.count:
            raise ValueError(f"allgather: recvbuf has {r.count} elements; {self.size} ranks x {s.count} = "
                             f"{self.size * s.count} needed")
        return self._coll("allgather", s, r, s.count)

    def reducescatter(self, sendbuf, recvbuf, op="sum"):
        """Reduce sendbuf (size x n elements) over all ranks; rank i keeps block i in recvbuf (n)."""
        s = _buffer(sendbuf, "reducescatter sendbuf", False)
        r = _buffer(recvbuf, "reducescatter recvbuf", True)
        if s.count != self.size * r.count:
            raise ValueError(f"reducescatter: sendbuf has {s.count} elements; {self.size} ranks x recvbuf's "
                             f"{r.count} = {self.size * r.count} needed")
        return self._coll("reducescatter", s, r, r.count, op)

    def alltoall(self, sendbuf, recvbuf=None):
        """Block j of sendbuf to rank j, whose block i of recvbuf receives it (in place when None)."""
        s = _buffer(sendbuf, "alltoall sendbuf", recvbuf is None)
        r = s if recvbuf is None else _buffer(recvbuf, "alltoall recvbuf", True)
        self._same_size("alltoall", s, r)
        if s.count % self.size:
            raise ValueError(f"alltoall: {s.count} elements do not split into {self.size} equal blocks")
        return self._coll("alltoall", s, r, s.count // self.size)

    def _p2p(self, name, fn, buf, peer):
        if not 0 <= peer < self.size:
            raise ValueError(f"{name}: peer {peer} is not a rank of this communicator (0..{self.size - 1})")
        if _in_group():
            _held.bufs.append(buf.obj)
        _check(f"chorus {name}", fn(buf.ptr, buf.count, _DTYPE_CODE[buf.dtype], peer, self._handle(), None))
        return buf.obj

    def send(self, buf, peer):
        """Send buf to rank peer (its recv must have the same count and type)."""
        return self._p2p("send", _c().chorus_send, _buffer(buf, "send buf", False), peer)

    def recv(self, buf, peer):
        """Receive from rank peer into buf. Returns buf."""
        return self._p2p("recv", _c().chorus_recv, _buffer(buf, "recv buf", True), peer)


try:
    _setup_logging()
    load()
except _lib.LibraryNotFound as e:
    _load_error = e  # raised at first use; chorus.load(path) may still name one
