"""Finding and loading libchorus, and the prototypes of include/chorus.h.

The library is looked for in this order, and the first place that names one
is the only place tried (a path that was asked for and does not load is an
error, never a reason to quietly load some other copy):

1. the path given to ``chorus.load(path)`` before the first use;
2. ``CHORUS_LIBRARY``;
3. the build folders of this checkout (``build/``, then any ``build*/``,
   newest first), where ``scripts/build`` puts ``engine/libchorus.so``;
4. the system's library path (``ctypes.util.find_library("chorus")``).
"""

import ctypes
import ctypes.util
import os
import pathlib

UNIQUE_ID_BYTES = 128  # CHORUS_UNIQUE_ID_BYTES


class LoadError(ImportError):
    """libchorus could not be found or loaded, or is not the version this package speaks."""


class LibraryNotFound(LoadError):
    """No libchorus in any of the places looked at."""


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * UNIQUE_ID_BYTES)]


_c_int_p = ctypes.POINTER(ctypes.c_int)
_c_void_pp = ctypes.POINTER(ctypes.c_void_p)

# name: (result type, argument types). Every chorus_result_t is a C int.
_PROTOTYPES = {
    "chorus_result_string": (ctypes.c_char_p, [ctypes.c_int]),
    "chorus_last_error": (ctypes.c_char_p, []),
    "chorus_version": (ctypes.c_int, []),
    "chorus_build_info": (ctypes.c_char_p, []),
    "chorus_dtype_size": (ctypes.c_size_t, [ctypes.c_int]),
    "chorus_dtype_name": (ctypes.c_char_p, [ctypes.c_int]),
    "chorus_redop_parse": (ctypes.c_int, [ctypes.c_char_p, _c_int_p]),
    "chorus_redop_name": (ctypes.c_char_p, [ctypes.c_int]),
    "chorus_get_unique_id": (ctypes.c_int, [ctypes.POINTER(UniqueId)]),
    "chorus_comm_init_rank": (ctypes.c_int, [_c_void_pp, ctypes.c_int, UniqueId, ctypes.c_int]),
    "chorus_comm_init_all": (ctypes.c_int, [_c_void_pp, ctypes.c_int]),
    "chorus_comm_init_env": (ctypes.c_int, [_c_void_pp]),
    "chorus_comm_destroy": (ctypes.c_int, [ctypes.c_void_p]),
    "chorus_comm_abort": (ctypes.c_int, [ctypes.c_void_p]),
    "chorus_comm_count": (ctypes.c_int, [ctypes.c_void_p, _c_int_p]),
    "chorus_comm_user_rank": (ctypes.c_int, [ctypes.c_void_p, _c_int_p]),
    "chorus_comm_nhosts": (ctypes.c_int, [ctypes.c_void_p, _c_int_p]),
    "chorus_comm_error_string": (ctypes.c_char_p, [ctypes.c_void_p]),
    "chorus_run_collective": (ctypes.c_int, [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                             ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                                             ctypes.c_void_p]),
    "chorus_send": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                                   ctypes.c_void_p]),
    "chorus_recv": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                                   ctypes.c_void_p]),
    "chorus_group_start": (ctypes.c_int, []),
    "chorus_group_end": (ctypes.c_int, []),
}


def _checkout_builds():
    """libchorus.so in this checkout's build folders: build/ first, then the others, newest first."""
    root = pathlib.Path(__file__).resolve().parents[2]
    found = [p for p in root.glob("build*/engine/libchorus.so") if p.is_file()]
    found.sort(key=lambda p: (p.parts[-3] != "build", -p.stat().st_mtime))
    return found


def candidates(explicit=None):
    """Where the library will be looked for: a list of (path, why), in order."""
    if explicit:
        return [(str(explicit), "the path given to chorus.load()")]
    env = os.environ.get("CHORUS_LIBRARY")
    if env:
        return [(env, "CHORUS_LIBRARY")]
    found = [(str(p), "this checkout's build folder") for p in _checkout_builds()]
    if found:
        return found[:1]
    system = ctypes.util.find_library("chorus")
    return [(system, "the system library path")] if system else []


def _loaded_path(lib, fallback):
    """The file the dynamic loader really mapped for lib (find_library gives only a soname)."""
    name = getattr(lib, "_name", fallback)
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(None, 5)[-1].strip()
                if os.path.basename(path).startswith("libchorus.so"):
                    return path
    except OSError:
        pass
    return name


def _version_text(code):
    return f"{code // 10000}.{code // 100 % 100}.{code % 100}"


def open_library(package_version, explicit=None):
    """Load libchorus and check it speaks package_version ("major.minor.patch": major and minor must
    match); returns (ctypes.CDLL, path really loaded, why that path, the library's version text)."""
    places = candidates(explicit)
    if not places:
        raise LibraryNotFound("chorus: libchorus.so not found: set CHORUS_LIBRARY to its path, build this checkout "
                        "(scripts/build puts it in build/engine/), or install it on the system library path")
    path, why = places[0]
    if os.sep in path and not os.path.exists(path):
        raise LoadError(f"chorus: {path} (from {why}) does not exist")
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise LoadError(f"chorus: cannot load {path} (from {why}): {e}") from None
    real = _loaded_path(lib, path)
    try:
        lib.chorus_version.restype, lib.chorus_version.argtypes = ctypes.c_int, []
    except AttributeError:
        raise LoadError(f"chorus: {real} (from {why}) has no chorus_version(): it is not libchorus") from None
    have = _version_text(lib.chorus_version())
    if have.split(".")[:2] != package_version.split(".")[:2]:
        raise LoadError(f"chorus: the Python package is {package_version} but {real} (from {why}) is libchorus "
                        f"{have}; point CHORUS_LIBRARY at a libchorus {package_version} build")
    for name, (restype, argtypes) in _PROTOTYPES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise LoadError(f"chorus: {real} (from {why}) has no {name}(): it is not a libchorus this "
                            f"package can use") from None
        fn.restype, fn.argtypes = restype, argtypes
    return lib, real, why, have
