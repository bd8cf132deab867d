"""udfkit's Python frontend: compiles Python UDFs with the C ABI of numba-cuda or of
numba-cuda-mlir (the request's "frontend": "numba-cuda", "numba-cuda-mlir" or "auto").

Two ways to run (`python -c <this file> [--serve SOCKET IDLE FRONTEND]`):
- a worker: udfkit writes a JSON request to its standard input and reads a JSON answer
  from its standard output;
- a server: imports its frontend once, warms it up with one compile, then for each
  connection on a Unix socket forks a child that answers one request exactly as a worker
  would (so no request sees another's modules), and exits after IDLE seconds without one.
  Importing a frontend and its first compile take about a second; a forked child starts
  at once.
Every requested function of every module is compiled in one process. Artifacts are written
into the request's `outdir`; udfkit moves them into place.
"""
import hashlib
import importlib.util
import json
import os
import re
import sys
import sysconfig
import time
import traceback

FRONTENDS = ("numba-cuda", "numba-cuda-mlir")  # "auto" takes the first installed
MIN_VERSIONS = {"numba-cuda": (0, 30, 1), "numba-cuda-mlir": (0, 6, 0)}
# udfkit's pins (requirements.txt, written in when udfkit is built).
INSTALL_HINT = "{python} -m pip install --no-deps @UDFKIT_PIP_PINS@"
FRONTEND = None  # the frontend this process compiles with (choose_frontend)
# src/frontend/udfkit_dates_decimals.py, put in when udfkit is built (src/CMakeLists.txt).
DATES_DECIMALS_SOURCE = """@UDFKIT_PY_DATES_DECIMALS@"""


class UdfError(Exception):
    """An error in the user's input, located where possible."""

    def __init__(self, message, file=None, line=0, kind="input"):
        super().__init__(message)
        self.message, self.file, self.line, self.kind = message, file, line, kind


def answer(obj, fd):
    """Writes the answer to `fd`, which only the answer reaches: what user modules print
    goes to standard error (udfkit keeps it for messages)."""
    data = json.dumps(obj).encode()
    while data:
        data = data[os.write(fd, data):]


def version_tuple(text):
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts + [0] * (3 - len(parts)))


def installed_version(distribution):
    try:
        import importlib.metadata as metadata

        return metadata.version(distribution)
    except Exception:
        return None


def load_frontend(name):
    """Frontend `name`, imported and checked; exit-3 errors where it cannot be used."""
    hint = INSTALL_HINT.format(python=sys.executable)
    version = installed_version(name)
    if version is None:
        raise UdfError(f"{sys.executable} has no {name}; install it: {hint}", kind="env")
    if version_tuple(version) < MIN_VERSIONS[name]:
        minimum = ".".join(str(n) for n in MIN_VERSIONS[name])
        raise UdfError(f"{name} {version} in {sys.executable} is older than {minimum}, which udfkit needs for "
                       f"its C ABI; install the right one: {hint}", kind="env")
    frontend = (NumbaCuda if name == "numba-cuda" else NumbaCudaMlir)(version)
    try:
        frontend.load()
    except UdfError:
        raise
    except Exception as exc:
        raise UdfError(f"{name} {version} in {sys.executable} cannot be imported ({type(exc).__name__}: {exc}); "
                       f"install a consistent set: {hint}", kind="env")
    return frontend


def choose_frontend(requested):
    """The frontend a request asks for, loaded once per process (a server's is loaded before
    it forks). "auto": numba-cuda where it is installed (a broken one is reported, not
    replaced), else numba-cuda-mlir."""
    global FRONTEND
    name = requested
    if requested == "auto":
        name = next((n for n in FRONTENDS if installed_version(n)), None)
        if name is None:
            raise UdfError(f"{sys.executable} has neither numba-cuda nor numba-cuda-mlir (--python-frontend auto "
                           f"takes either); install them: {INSTALL_HINT.format(python=sys.executable)}", kind="env")
    elif requested not in FRONTENDS:
        raise UdfError(f"unknown Python frontend '{requested}' (numba-cuda, numba-cuda-mlir or auto)", kind="env")
    if FRONTEND is None or FRONTEND.name != name:
        FRONTEND = load_frontend(name)
    FRONTEND.requested = requested
    return FRONTEND


def nvvm_version():
    """The CUDA release of the NVVM the frontend uses, as "13.0"."""
    v = installed_version("nvidia-nvvm")
    if v:
        return ".".join(v.split(".")[:2])
    try:
        nvvm = importlib.import_module(FRONTEND.nvvm_module)
        path = getattr(nvvm.NVVM().driver, "_name", "") or ""
        root = os.path.dirname(os.path.dirname(os.path.dirname(path)))
        with open(os.path.join(root, "version.json")) as f:
            v = json.load(f)["cuda"]["version"]
        return ".".join(v.split(".")[:2])
    except Exception:
        return None


def import_module(path):
    """Imports a file under a name unique to its path: numba names helpers by module, and
    two udfs.py files must not merge at LTO."""
    stem = os.path.splitext(os.path.basename(path))[0]
    digest = hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:12]
    name = "udfkit_" + "".join(c if c.isalnum() else "_" for c in stem) + "_" + digest
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise UdfError("cannot be imported as a Python module", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise UdfError(f"SyntaxError: {exc.msg}", exc.filename or path, exc.lineno or 0)
    except Exception as exc:
        file, line = path, 0
        for frame in traceback.extract_tb(exc.__traceback__):
            if is_local(frame.filename):
                file, line = frame.filename, frame.lineno
        raise UdfError(f"importing the module failed: {type(exc).__name__}: {exc}", file, line)
    return module


STDLIB = {os.path.realpath(p) for p in {sysconfig.get_paths().get("stdlib"), sysconfig.get_paths().get("platstdlib"),
                                        sysconfig.get_paths().get("purelib"), sysconfig.get_paths().get("platlib")} if p}


def is_local(path):
    if not path or path.startswith("<"):
        return False
    real = os.path.realpath(path)
    if "site-packages" in real.split(os.sep) or "dist-packages" in real.split(os.sep):
        return False
    return not any(real == root or real.startswith(root + os.sep) for root in STDLIB)


# Modules the server imported before forking a child: numba, numpy, the standard library.
# A child looks for the user's modules among the others only.
FRONTEND_MODULES = frozenset()


def user_modules():
    return [m for name, m in list(sys.modules.items()) if name not in FRONTEND_MODULES]


def local_files():
    files = set()
    for module in user_modules():
        path = getattr(module, "__file__", None)
        if path and is_local(path) and os.path.exists(path):
            files.add(os.path.abspath(path))
    return sorted(files)


# The spec's type names and numba.types' attributes for them (udfkit's type table, sent with
# each request: base/types.c).
KINDS = {}


def numba_type(name):
    types = FRONTEND.types()
    if name == "void*":
        return types.voidptr
    if name.endswith("*"):
        return types.CPointer(numba_type(name[:-1]))
    ty = getattr(types, KINDS[name], None)
    if ty is None:
        raise UdfError(f"type {name} is not supported in Python UDFs by the {FRONTEND.name} frontend")
    return ty


def udfkit_type(ty):
    """numba's type back to udfkit's name, or None where it cannot cross the C ABI."""
    types = FRONTEND.types()
    names = {getattr(types, attr): name for name, attr in KINDS.items() if hasattr(types, attr)}
    names.update({types.none: "void", types.voidptr: "void*"})
    if ty in names:
        return names[ty]
    if isinstance(ty, types.CPointer) and ty.dtype in names:
        return names[ty.dtype] + "*"
    return None


def trim_numba_message(text):
    """numba's typing errors carry pages of context: keep the reason a user needs (for a
    call no overload takes, the call as typed, not the list of every candidate)."""
    keep = []
    for line in str(text).splitlines():
        stripped = line.strip()
        if stripped.startswith(("During:", "For further information", 'File "', "There are ")):
            break
        if (not stripped or stripped.startswith(("Failed in ", "- Resolution failure")) or "\x1b" in stripped
                or set(stripped) <= {"^", " "}):
            continue
        keep.append(stripped)
    return " ".join(keep[:6]) if keep else str(text).strip().splitlines()[0]


def locate_typing_errors(typeinfer_module):
    """numba's type inference (numba-cuda's, and the copy numba-cuda-mlir carries) runs one
    constraint per statement; an error some of them raise (numba's own TypingError class, an
    AttributeError from a module) leaves without the statement's location, so the error
    would be placed at the def line. Each constraint is wrapped to mark what it raises with
    its location (udfkit_loc)."""
    try:
        typeinfer = importlib.import_module(typeinfer_module)
    except ImportError:
        return
    network = typeinfer.ConstraintNetwork
    if getattr(network, "udfkit_located", False):
        return
    original = network.propagate

    class Located:
        def __init__(self, constraint):
            self.constraint = constraint

        def __getattr__(self, name):
            return getattr(self.constraint, name)

        def __call__(self, *args, **kwargs):
            try:
                return self.constraint(*args, **kwargs)
            except Exception as exc:
                loc = getattr(self.constraint, "loc", None)
                if loc is not None and getattr(exc, "udfkit_loc", None) is None:
                    try:
                        exc.udfkit_loc = loc
                    except AttributeError:
                        pass
                raise

    def propagate(self, *args, **kwargs):
        constraints = self.constraints
        self.constraints = [Located(c) for c in constraints]
        try:
            return original(self, *args, **kwargs)
        finally:
            self.constraints = constraints

    network.propagate = propagate
    network.udfkit_located = True


def c_abi_helpers_named_by_type():
    """numba-cuda's C-ABI calling convention names every function it emits by the last
    part of its name only: numba's float divmod helper (".numba.python.rem", behind float
    % and //) is "rem" for float32 and for float64 alike, with link-once linkage. Two UDFs
    using it with different types then share one definition at link time, and the float32
    caller runs the float64 body: wrong values, or an illegal memory access as it stores a
    double into a float. Internal helpers (".numba.*") get the type-mangled names numba's
    own calling convention gives them; the UDF keeps its C name."""
    try:
        from numba.cuda import itanium_mangler
        from numba.cuda.core import callconv
    except ImportError:
        return
    conv = callconv.CUDACABICallConv
    if getattr(conv.mangler, "udfkit_by_type", False):
        return
    original = conv.mangler

    def mangler(self, name, argtypes, *, abi_tags=None, uid=None):
        if name.startswith(".numba."):
            return itanium_mangler.mangle(name, argtypes, abi_tags=abi_tags or (), uid=uid)
        return original(self, name, argtypes, abi_tags=abi_tags, uid=uid)

    mangler.udfkit_by_type = True
    conv.mangler = mangler


def shared_shims_link_once():
    """numba-cuda's float16/bfloat16/fp8 operators are C++ shims (functions named *_nbst)
    that each compile brings as a link file of its own, with the operators it used: two
    compiles that used the same operator define it twice, and nvJitLink stops ("symbol
    multiply defined"). Each shim is compiled inline and used, so it is emitted with
    link-once linkage: any number of copies link as one."""
    from numba.cuda.cudadrv import nvrtc

    if getattr(nvrtc.compile, "udfkit_link_once", False):
        return
    original = nvrtc.compile
    pattern = re.compile(r'extern "C" __device__ (?=\w+\s+\w+_nbst\()')

    def compile(src, name, *args, **kwargs):
        text = src.decode() if isinstance(src, bytes) else src
        if isinstance(text, str) and "_nbst(" in text:
            text = pattern.sub('extern "C" __device__ inline __attribute__((used)) ', text)
            src = text.encode() if isinstance(src, bytes) else text
        return original(src, name, *args, **kwargs)

    compile.udfkit_link_once = True
    nvrtc.compile = compile


STRINGS_FILE = None  # udfkit_strings.py (str in Python UDFs), which udfkit writes beside each request


def strings():
    """The udfkit_strings module, from the file udfkit wrote beside the request (or beside this
    file where the worker runs from udfkit's source tree)."""
    module = sys.modules.get("udfkit_strings")
    if module is None:
        import types as pytypes

        path = STRINGS_FILE or os.path.join(os.path.dirname(os.path.abspath(__file__)), "udfkit_strings.py")
        with open(path) as f:
            source = f.read()
        module = pytypes.ModuleType("udfkit_strings")
        exec(compile(source, "udfkit_strings.py", "exec"), module.__dict__)
        sys.modules["udfkit_strings"] = module
    return module


def string_artifacts(fn, request):
    """The string functions' code (udfkit_strings.SHIM_SOURCE) a numba-cuda UDF links where it
    uses str (its spec, or an operation its compile lowered; a helper's operations are lowered
    once per request, and the one link artifact serves the whole manifest): (bytes, kind), or
    None."""
    if FRONTEND.name != "numba-cuda" or not (strings().take_lowered() or strings().uses_strings(fn)):
        return None
    try:
        return code_bytes(strings().shim_code(request, FRONTEND.nvrtc_compile))
    except Exception as exc:
        raise UdfError(f"compiling udfkit's string functions for Python UDFs failed: {exc}", kind="env")


ROW_ERROR_RAISED = -1  # the code of a raise other than udfkit.RowError(code)


def call_row_error(builder, code):
    """A call of the C ABI's `void udfkit_row_error(int code)` (udfkit's kernels define it)."""
    from llvmlite import ir
    from numba.cuda import cgutils

    fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(32)])
    builder.call(cgutils.get_or_insert_function(builder.module, fnty, "udfkit_row_error"), [code])


def numba_cuda_row_error():
    """udfkit.row_error under numba-cuda: an intrinsic taking any integer as the int32 code."""
    from numba import types
    from numba.cuda.extending import intrinsic

    @intrinsic
    def row_error(typingctx, code):
        """row_error(code): the row fails with `code` (an integer, taken as int32)."""
        if not isinstance(code, types.Integer):
            return None  # numba says: no implementation of row_error for that type

        def codegen(context, builder, signature, args):
            call_row_error(builder, context.cast(builder, args[0], code, types.int32))
            return context.get_dummy_value()

        return types.none(code), codegen

    return row_error


def udfkit_module():
    """`import udfkit` in a UDF's module: udfkit.row_error(code) stops the row with that code
    (the C ABI's udfkit_row_error, defined by udfkit's kernels), and `raise
    udfkit.RowError(code)` does the same where code is a constant int (numba-cuda only)."""
    import types as pytypes

    if "udfkit" in sys.modules and getattr(sys.modules["udfkit"], "udfkit_worker", False):
        return

    class RowError(Exception):
        """raise RowError(code): the row fails with `code` (a constant int)."""

    module = pytypes.ModuleType("udfkit", "udfkit's functions for Python UDFs")
    module.row_error = FRONTEND.row_error()
    module.RowError = RowError
    module.ROW_ERROR_RAISED = ROW_ERROR_RAISED
    module.udfkit_worker = True
    dates_decimals().install(module, FRONTEND.name == "numba-cuda")  # udfkit.Decimal, udfkit.year, ...
    sys.modules["udfkit"] = module


def dates_decimals():
    """udfkit_dates_decimals.py as a module: decimals, dates and times in Python UDFs."""
    import types as pytypes

    module = sys.modules.get("udfkit_dates_decimals")
    if module is None:
        module = pytypes.ModuleType("udfkit_dates_decimals")
        exec(compile(DATES_DECIMALS_SOURCE, "udfkit_dates_decimals.py", "exec"), module.__dict__)
        sys.modules["udfkit_dates_decimals"] = module
    return module


def raise_code(exc, exc_args, loc=None):
    """The row error code of `raise exc(*exc_args)` (at loc, for messages)."""
    module = sys.modules.get("udfkit")
    row_error = getattr(module, "RowError", None)
    if row_error is not None and isinstance(exc, type) and issubclass(exc, row_error):
        args = exc_args or ()
        if len(args) == 1 and isinstance(args[0], int) and not isinstance(args[0], bool) \
                and -2**31 <= args[0] < 2**31:
            return args[0]
        raise UdfError(f"udfkit.RowError takes one constant int code (an int32), not {args!r}: "
                       f"call udfkit.row_error(code) for a code computed at run time",
                       getattr(loc, "filename", None), getattr(loc, "line", None))
    return ROW_ERROR_RAISED


def raise_records_row_error():
    """numba-cuda compiles `raise` in device code to an error status that the C ABI drops:
    the row went on as if nothing had happened. Here a raise first calls udfkit_row_error
    with its code (udfkit.RowError's, else ROW_ERROR_RAISED), so the launch records the row;
    under the C ABI the function then returns zero."""
    from llvmlite import ir
    from numba.cuda.core import callconv

    for conv in (callconv.MinimalCallConv, callconv.CUDACABICallConv):
        if getattr(conv.return_user_exc, "udfkit_row_error", False):
            continue
        original = conv.return_user_exc
        c_abi = conv is callconv.CUDACABICallConv

        def return_user_exc(self, builder, exc, exc_args=None, loc=None, func_name=None, _original=original,
                            _c_abi=c_abi):
            call_row_error(builder, ir.Constant(ir.IntType(32), raise_code(exc, exc_args, loc)))
            if not _c_abi:
                return _original(self, builder, exc, exc_args, loc=loc, func_name=func_name)
            rettype = builder.function.ftype.return_type
            return builder.ret_void() if isinstance(rettype, ir.VoidType) else builder.ret(ir.Constant(rettype, None))

        return_user_exc.udfkit_row_error = True
        conv.return_user_exc = return_user_exc


def error_location(text, default_file, default_line):
    for exc in (text, getattr(text, "__cause__", None)):
        loc = getattr(exc, "udfkit_loc", None) or getattr(exc, "loc", None)
        if loc is not None and getattr(loc, "filename", None) and getattr(loc, "line", None):
            return loc.filename, int(loc.line)
    for line in str(text).splitlines():
        line = line.strip()
        if line.startswith('File "') and '", line ' in line:
            file = line[6:line.index('", line ')]
            number = line[line.index('", line ') + 8:].split(":")[0].split()[0]
            if number.isdigit():
                return file, int(number)
    return default_file, default_line


def code_bytes(code):
    """compile_all returns bytes, str, cuda.core ObjectCode or numba LinkableCode."""
    if isinstance(code, (bytes, bytearray)):
        return bytes(code), "ltoir"
    if isinstance(code, str):
        return code.encode(), "ptx"
    kind = getattr(code, "code_type", None) or getattr(code, "kind", None)
    data = getattr(code, "code", None) if hasattr(code, "code_type") else getattr(code, "data", None)
    if isinstance(data, str):
        data = data.encode()
    kinds = {"ltoir": "ltoir", "ptx": "ptx", "cubin": "cubin", "fatbin": "fatbin", "object": "o", "library": "a",
             0: "cubin", 1: "ptx", 2: "fatbin", 3: "o", 4: "a", 5: "ltoir"}
    return bytes(data), kinds.get(kind, str(kind))


def compile_without_a_device(cc):
    """numba-cuda compiles a called device function for the current device's compute
    capability, which needs a GPU. udfkit compiles ahead of time for a named architecture:
    answer with that one, so UDFs calling others compile on a machine without a GPU."""
    from numba.cuda import dispatcher

    class Target:
        compute_capability = tuple(cc)

    dispatcher.get_current_device = lambda: Target
    driver_version_without_a_driver()


def driver_version_without_a_driver():
    """cuda.core asks the driver for its version when NVRTC makes PTX (to warn that it may
    not load). Where there is no driver, answer with NVRTC's own version: nothing is loaded."""
    try:
        from cuda.bindings import driver, nvrtc

        try:
            driver.cuDriverGetVersion()
        except RuntimeError:
            _, major, minor = nvrtc.nvrtcVersion()
            driver.cuDriverGetVersion = lambda: (driver.CUresult.CUDA_SUCCESS, major * 1000 + minor * 10)
    except ImportError:
        pass


def make_device_functions():
    """Plain functions of the user's modules become device functions of the frontend
    wherever those modules name them, so a UDF can call another module-level function
    undecorated."""
    local = [m for m in user_modules() if is_local(getattr(m, "__file__", None))]
    wrapped = {}
    for module in local:
        for name, value in list(vars(module).items()):
            func = FRONTEND.plain_function(value)
            if func is not None and is_local(func.__code__.co_filename):
                if func not in wrapped:
                    wrapped[func] = FRONTEND.device_function(func)
                setattr(module, name, wrapped[func])


def optional_type(ty):
    """T for numba's Optional(T), else None."""
    return ty.type if isinstance(ty, FRONTEND.types().Optional) else None


def nullable_wrapper(fn, pyfunc, path, line):
    """A spec with nullable types (T?): the UDF sees a nullable argument as a value that may
    be None and may return None (numba's optional types); the C ABI has the pairs of SPEC.md
    (T value, bool valid; a T? return a leading T *out and a bool result). A wrapper of that
    ABI calls the UDF. Returns it, its signature and the return type's name."""
    types = FRONTEND.types()
    params = fn["params"]
    for k, t in enumerate(params):
        if t.endswith("?*"):
            raise UdfError(f"'{fn['source_name']}': parameter {k + 1} is {t}, an output that may be set to null; a "
                           f"Python UDF returns None instead: give it a T? return", path, line)
    device = FRONTEND.device_function(pyfunc)
    user_args = tuple(types.optional(numba_type(t[:-1])) if t.endswith("?") else numba_type(t) for t in params)
    ret = fn["ret"]
    returned = device.compile_device(user_args).signature.return_type
    inner = optional_type(returned)
    if ret is None:
        base = udfkit_type(inner if inner is not None else returned)
        if base is None:
            raise UdfError(f"'{fn['source_name']}' returns {returned}, which cannot cross the C ABI", path, line)
        ret = base + "?" if inner is not None else base
    elif inner is not None and not ret.endswith("?"):
        raise UdfError(f"'{fn['source_name']}' may return None, but its return type {ret} is not nullable: declare "
                       f"{ret}?", path, line)
    abi_params, abi_types, call = [], [], []
    if ret.endswith("?"):
        abi_params.append("out")
        # numba stores a boolean as i1, not as C's one byte: a bool? result goes out as uint8.
        abi_types.append(types.CPointer(types.uint8 if ret == "bool?" else numba_type(ret[:-1])))
    for k, t in enumerate(params):
        abi_params.append(f"a{k}")
        abi_types.append(numba_type(t.rstrip("?")))
        if t.endswith("?"):
            abi_params.append(f"a{k}_valid")
            abi_types.append(types.boolean)
            call.append(f"(a{k} if a{k}_valid else None)")
        else:
            call.append(f"a{k}")
    invoke = f"udf({', '.join(call)})"
    if ret.endswith("?"):
        store = "(1 if r else 0)" if ret == "bool?" else "r"
        body = f"    r = {invoke}\n    if r is None:\n        return False\n    out[0] = {store}\n    return True\n"
        abi_ret = types.boolean
    else:
        body = f"    return {invoke}\n" if ret != "void" else f"    {invoke}\n"
        abi_ret = numba_type(ret)
    scope = {"udf": device}
    exec(f"def udfkit_nullable_{fn['c_name']}({', '.join(abi_params)}):\n{body}", scope)
    return scope[f"udfkit_nullable_{fn['c_name']}"], abi_ret(*abi_types), ret


def dates_decimals_wrapper(fn, pyfunc, path, line):
    """nullable_wrapper's counterpart for specs with dates, times or decimals."""
    dd = dates_decimals()
    if FRONTEND.name != "numba-cuda":
        raise UdfError(f"'{fn['source_name']}': dates, times and decimals ({fn['spec']}) are supported under "
                       f"numba-cuda only; compile it with --python-frontend numba-cuda", path, line)
    try:
        return dd.wrapper(fn, pyfunc, path, line, FRONTEND, numba_type, udfkit_type)
    except dd.UdfError as exc:
        raise UdfError(exc.message, exc.file, exc.line)


def compile_function(fn, module, request, out):
    pyfunc = getattr(module, fn["source_name"], None)
    path = module.__file__
    if pyfunc is None:
        names = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_"))
        raise UdfError(f"function '{fn['source_name']}' is not defined in {path}"
                       + (f" (it defines: {', '.join(names[:12])})" if names else ""), path)
    pyfunc = getattr(pyfunc, "py_func", pyfunc)
    if not callable(pyfunc) or not hasattr(pyfunc, "__code__"):
        raise UdfError(f"'{fn['source_name']}' is not a Python function", path)
    line = pyfunc.__code__.co_firstlineno
    shown = f"({', '.join(fn['params'])})"
    FRONTEND.check(fn, pyfunc, path, line)
    nullable_ret = None
    try:
        if dates_decimals().handles(fn):
            compiled, sig, nullable_ret = dates_decimals_wrapper(fn, pyfunc, path, line)
        elif FRONTEND.name == "numba-cuda" and strings().uses_strings(fn):
            compiled, sig, nullable_ret = strings().wrapper(fn, pyfunc, path, line, FRONTEND, numba_type, udfkit_type,
                                                            UdfError)
        elif any("?" in t for t in fn["params"] + [fn["ret"] or ""]):
            compiled, sig, nullable_ret = nullable_wrapper(fn, pyfunc, path, line)
        else:
            argtypes = tuple(numba_type(t) for t in fn["params"])
            compiled, sig = pyfunc, numba_type(fn["ret"])(*argtypes) if fn["ret"] else argtypes
        codes, resty = FRONTEND.compile(compiled, sig, fn["c_name"], request)
    except OSError as exc:
        # A declare_device(link=[...]) file that cannot be read: numba reads it relative to the working directory.
        raise UdfError(f"cannot compile '{fn['source_name']}': code it links cannot be read: {exc}", path, line)
    except FRONTEND.errors() as exc:  # TypingError and numba's other errors, whichever module defines them
        file, at = error_location(exc, path, line)
        own = dates_decimals().own_message(exc) if "udfkit_dates_decimals" in sys.modules else None
        if own:  # a decimal, date or time operation's reason (at the UDF, not in udfkit's wrapper)
            raise UdfError(f"cannot compile '{fn['source_name']}' for {shown}: {own}",
                           *((file, at) if file and not file.startswith("<") else (path, line)))
        if "No conversion from none to" in str(exc):
            raise UdfError(f"'{fn['source_name']}' may return None, but its return type {fn['ret']} is not nullable: "
                           f"declare {fn['ret']}? in its spec", file, at)
        raise UdfError(f"cannot compile '{fn['source_name']}' for {shown}: {trim_numba_message(exc)}", file, at)
    except Exception as exc:
        # numba-cuda's C ABI cannot return numba's optional: a UDF that may return None
        # whose spec leaves the return type to inference and has no T? in it.
        if isinstance(exc, AttributeError) and "_return_errcode_raw" in str(exc):
            raise UdfError(f"'{fn['source_name']}' may return None, but its spec has no nullable return: declare "
                           f"it (e.g. {fn['c_name']}:float64?{shown})", path, line)
        failure = FRONTEND.internal_error(exc)
        if failure is not None:
            reason, file, at = failure
            raise UdfError(f"{FRONTEND.name} {FRONTEND.version} cannot compile '{fn['source_name']}' for {shown}: "
                           f"{reason}", file or path, at or line)
        # Raised while typing a statement of the user's code (math.nosuch): a located
        # error of theirs. Anything else stays an internal error, with its traceback.
        if getattr(exc, "udfkit_loc", None) is None:
            raise
        file, at = error_location(exc, path, line)
        raise UdfError(f"cannot compile '{fn['source_name']}' for {shown}: {type(exc).__name__}: {exc}", file, at)
    if nullable_ret is None and optional_type(resty) is not None:
        raise UdfError(f"'{fn['source_name']}' may return None, but its spec has no nullable return"
                       + FRONTEND.nullable_hint(fn["c_name"], shown), path, line)
    ret = nullable_ret or udfkit_type(resty)
    if ret is None:
        raise UdfError(f"'{fn['source_name']}' returns {resty}, which cannot cross the C ABI (arrays, records and "
                       f"tuples cannot); return a scalar, and pass a pointer for anything larger", path, line)
    artifacts = []
    for index, code in enumerate(codes):
        data, kind = code_bytes(code)
        name = f"{fn['c_name']}.{index}.{kind}"
        with open(os.path.join(request["outdir"], name), "wb") as f:
            f.write(data)
        artifacts.append({"file": name, "kind": kind, "role": "udf" if index == 0 else "link"})
    shim = string_artifacts(fn, request)
    if shim is not None:
        name = f"{fn['c_name']}.strings.{shim[1]}"
        with open(os.path.join(request["outdir"], name), "wb") as f:
            f.write(shim[0])
        artifacts.append({"file": name, "kind": shim[1], "role": "link"})
    out.append({"c_name": fn["c_name"], "source_name": fn["source_name"], "source": path, "line": line,
                "ret": ret, "artifacts": artifacts})


def declared_links(module, request):
    """A module-level __udfkit_link__ list names external code its functions need."""
    declared = getattr(module, "__udfkit_link__", None)
    if declared is None:
        return []
    path = module.__file__
    if isinstance(declared, (str, bytes)) or not hasattr(declared, "__iter__"):
        raise UdfError("__udfkit_link__ must be a list of file paths", path)
    links = []
    base = os.path.dirname(os.path.abspath(path))
    for entry in declared:
        if not isinstance(entry, str):
            raise UdfError(f"__udfkit_link__ entry {entry!r} is not a file path", path)
        file = os.path.normpath(os.path.join(base, entry))
        if not os.path.isfile(file):
            raise UdfError(f"__udfkit_link__ names '{entry}', which does not exist ({file})", path)
        ext = os.path.splitext(file)[1]
        if ext not in (".ltoir", ".ptx", ".cubin", ".fatbin", ".o", ".a", ".cu"):
            raise UdfError(f"__udfkit_link__ entry '{entry}' is not .ltoir, .ptx, .cubin, .fatbin, .o, .a or .cu", path)
        record = {"declared": entry, "path": file}
        if ext == ".cu":
            try:
                code = FRONTEND.nvrtc_compile(file, tuple(request["cc"]), request["output"] == "ltoir")
            except Exception as exc:
                raise UdfError(f"compiling __udfkit_link__ entry '{entry}' failed: {exc}", file)
            data, kind = code_bytes(code)
            name = f"link.{len(links)}.{kind}"
            with open(os.path.join(request["outdir"], name), "wb") as f:
                f.write(data)
            record.update(file=name, kind=kind)
        links.append(record)
    return links


ENVIRONMENT_FILES = None  # the server's, found once before it forks


def environment_files():
    """Files whose bytes identify the toolchain (the installed distributions' METADATA and
    RECORD), so that udfkit's cache notices an upgraded frontend, numba or NVVM. Where
    "auto" took numba-cuda-mlir, also the file a numba-cuda installed later would bring: its
    appearance makes "auto" choose again."""
    if ENVIRONMENT_FILES is not None:
        return ENVIRONMENT_FILES
    import importlib.metadata as metadata

    files = []
    for name in FRONTEND.distributions:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        # The .dist-info directory holds both; listing dist.files would parse every path in RECORD.
        directory = str(getattr(dist, "_path", ""))
        files += [p for p in (os.path.join(directory, "METADATA"), os.path.join(directory, "RECORD")) if os.path.isfile(p)]
    if FRONTEND.requested == "auto" and FRONTEND.name != FRONTENDS[0]:
        files += [os.path.join(d, "numba_cuda", "__init__.py") for d in sys.path
                  if os.path.isabs(d) and os.path.isdir(d)]
    return sorted(set(files))


def handle(request):
    """The answer to one request, as a dict."""
    global STRINGS_FILE
    try:
        STRINGS_FILE = os.path.join(request["outdir"], "udfkit_strings.py")
        KINDS.clear()
        KINDS.update(request["kinds"])
        frontend = choose_frontend(request.get("frontend") or "auto")
        udfkit_module()
        frontend.before_import()
        modules = {path: import_module(path) for path in request["modules"]}
        frontend.prepare(request["cc"])
        make_device_functions()
        functions, links = [], []
        skip_absent = request.get("skip_absent", False)
        for fn in request["functions"]:
            module = modules.get(fn["file"]) if fn.get("file") else None
            if fn.get("at") and module is None and skip_absent:
                continue  # its @file is compiled elsewhere
            if skip_absent and not any(callable(getattr(m, fn["source_name"], None)) for m in modules.values()):
                continue  # defined by another source of the target
            if module is None and len(modules) == 1:
                module = next(iter(modules.values()))
            if module is None:
                owners = [m for p, m in modules.items() if callable(getattr(m, fn["source_name"], None))]
                if not owners:
                    raise UdfError(f"function spec '{fn['spec']}': no source defines '{fn['source_name']}' "
                                   f"(searched {', '.join(request['modules'])})")
                if len(owners) > 1:
                    raise UdfError(f"function spec '{fn['spec']}': '{fn['source_name']}' is defined in both "
                                   f"{owners[0].__file__} and {owners[1].__file__}; name one with @file")
                module = owners[0]
            compile_function(fn, module, request, functions)
        shims = dates_decimals().shim_code(request) if "udfkit_dates_decimals" in sys.modules else None
        if shims:  # the CUDA C that the functions' decimal, date and time operations call
            name = f"udfkit_dates_decimals.{shims[1]}"
            with open(os.path.join(request["outdir"], name), "wb") as f:
                f.write(shims[0])
            for fn in functions:
                fn["artifacts"].append({"file": name, "kind": shims[1], "role": "link"})
        for path, module in modules.items():
            links += declared_links(module, request)
        return {"ok": True, "frontend": frontend.name, "frontend_version": frontend.version, "nvvm": nvvm_version(),
                "python": sys.executable,
                "functions": functions, "links": links, "depends": local_files(), "environment": environment_files()}
    except UdfError as exc:
        return {"ok": False, "kind": exc.kind, "message": exc.message, "file": exc.file, "line": exc.line}
    except Exception as exc:
        return {"ok": False, "kind": "internal", "message": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()}


def environment_stamp():
    """Sizes and times of the files that identify the installed toolchain: a server whose
    numba-cuda, numba or NVVM was upgraded under it must not answer with the old one."""
    stamp = []
    for path in environment_files():
        try:
            st = os.stat(path)
            stamp.append((path, st.st_size, st.st_mtime_ns))
        except OSError:
            stamp.append((path, None, None))
    return stamp


class NumbaCuda:
    """numba-cuda: compile_all with the C ABI (a function and the code it links), with
    udfkit's adjustments to what it emits."""
    name = "numba-cuda"
    distributions = ("numba-cuda", "numba", "llvmlite", "numpy", "nvidia-nvvm", "cuda-core", "cuda-bindings")
    nvvm_module = "numba.cuda.cudadrv.nvvm"

    def __init__(self, version):
        self.version, self.requested = version, self.name

    def load(self):
        from numba import cuda, types  # noqa: F401
        from numba.cuda import compile_all  # noqa: F401

    def types(self):
        from numba import types

        return types

    def errors(self):
        from numba.core import errors

        return errors.NumbaError

    def plain_function(self, value):
        import types as pytypes

        return value if isinstance(value, pytypes.FunctionType) else None

    def device_function(self, pyfunc):
        from numba import cuda

        return cuda.jit(device=True)(pyfunc)

    def row_error(self):
        return numba_cuda_row_error()

    def before_import(self):
        raise_records_row_error()

    def prepare(self, cc):
        strings().define()  # str's operations (udfkit_strings.py)
        compile_without_a_device(cc)
        locate_typing_errors("numba.cuda.core.typeinfer")
        shared_shims_link_once()
        c_abi_helpers_named_by_type()

    def check(self, fn, pyfunc, path, line):
        """numba-cuda compiles every feature udfkit has."""

    def nullable_hint(self, c_name, shown):
        return f": declare it (e.g. {c_name}:float64?{shown})"

    def compile(self, pyfunc, sig, c_name, request):
        from numba.cuda import compile_all

        return compile_all(pyfunc, sig, device=True, abi="c", abi_info={"abi_name": c_name}, output=request["output"],
                           cc=tuple(request["cc"]))

    def internal_error(self, exc):
        return None

    def nvrtc_compile(self, path, cc, ltoir):
        from numba.cuda.cudadrv import nvrtc
        from numba.cuda.cudadrv.linkable_code import LinkableCode

        obj = LinkableCode.from_path(path)
        return nvrtc.compile(obj.data, obj.name, cc, ltoir=ltoir)[0]

    def warm_up(self):
        """One small compile, so that numba's typing and target contexts and NVVM are ready
        in every child (a richer one measured no faster for the children), and one device
        function, whose first makes numba look for nvJitLink."""
        from numba import cuda, types
        from numba.cuda import compile_all

        compile_without_a_device((7, 5))

        def udfkit_warm_up(x):
            return x * 2.0 + 1.0

        compile_all(udfkit_warm_up, types.float32(types.float32), device=True, abi="c",
                    abi_info={"abi_name": "udfkit_warm_up"}, output="ltoir", cc=(7, 5))
        cuda.jit(device=True)(udfkit_warm_up)

    def before_fork(self):
        """Nothing of numba-cuda's runs on other threads."""


MLIR_EXPORT = None  # the C name numba-cuda-mlir compiles now
MLIR_CALLEES = {}  # (qualname, id) of each device function it called, in the order of first use


def mlir_helpers_named_per_export():
    """numba-cuda-mlir names a device function it does not inline by its qualname and the
    id() of its dispatcher, with external linkage: the bytes differ from run to run, and two
    UDFs calling one such helper cannot be linked together (each brings a copy: symbol
    multiply defined). udfkit names each copy by the UDF it belongs to, the qualname and the
    order of first use: the same input gives the same bytes, and copies never meet."""
    from numba_cuda_mlir import mlir_lowering

    original = mlir_lowering.generate_mangled_name
    if getattr(original, "udfkit_per_export", False):
        return
    by_id = re.compile(r"^(.*)_(\d{6,})$")

    def generate_mangled_name(func_name, argtypes):
        m = by_id.match(func_name)
        if m and MLIR_EXPORT:
            qualname = m.group(1)
            ordinal = sum(1 for q, _ in MLIR_CALLEES if q == qualname)
            ordinal = MLIR_CALLEES.setdefault((qualname, int(m.group(2))), ordinal)
            func_name = f"{qualname}__udfkit_{MLIR_EXPORT}_{ordinal}"
        return original(func_name, argtypes)

    generate_mangled_name.udfkit_per_export = True
    mlir_lowering.generate_mangled_name = generate_mangled_name


def referenced(pyfunc):
    """The Python functions `pyfunc` may call (itself first: the user's functions and every
    device function's, reached through globals, free variables, dispatchers and module
    attributes, as numba resolves them), and every other object their code names. A plain
    function of an installed package is not one: numba compiles its own implementation of
    those it knows (numpy's, math's), never their Python code."""
    import types as pytypes

    functions, others, todo, seen = [], [], [pyfunc], set()
    while todo:
        func = todo.pop(0)
        if id(func) in seen:
            continue
        seen.add(id(func))
        functions.append(func)
        names, codes = set(), [func.__code__]
        while codes:
            code = codes.pop()
            names.update(code.co_names)
            codes += [c for c in code.co_consts if isinstance(c, pytypes.CodeType)]
        values = [func.__globals__[n] for n in sorted(names) if n in func.__globals__]
        values += [cell.cell_contents for cell in func.__closure__ or () if cell.cell_contents is not None]
        values += [getattr(m, n) for m in list(values) if isinstance(m, pytypes.ModuleType)
                   for n in sorted(names) if n in vars(m)]
        for value in values:
            target = getattr(value, "py_func", value)
            jitted = target is not value
            if isinstance(target, pytypes.FunctionType) and (jitted or is_local(target.__code__.co_filename)):
                todo.append(target)
            if not isinstance(value, (pytypes.FunctionType, pytypes.ModuleType)):
                others.append(value)
    return functions, others


def raise_at(func):
    """The line of the first `raise` or `assert` in func's code, or None."""
    import dis
    import types as pytypes

    codes = [func.__code__]
    while codes:
        code = codes.pop()
        line = code.co_firstlineno
        for inst in dis.get_instructions(code):
            line = inst.positions.lineno if getattr(inst, "positions", None) and inst.positions.lineno else line
            if inst.opname == "RAISE_VARARGS":
                return line
        codes += [c for c in code.co_consts if isinstance(c, pytypes.CodeType)]
    return None


class NumbaCudaMlir:
    """numba-cuda-mlir: one compile call per function (it has no compile_all and hands back
    no code to link), checked first for what it cannot do the way udfkit's C ABI needs."""
    name = "numba-cuda-mlir"
    distributions = ("numba-cuda-mlir", "numpy", "nvidia-nvvm", "cuda-core", "cuda-bindings", "cuda-pathfinder",
                     "typing-extensions")
    nvvm_module = "numba_cuda_mlir.numba_cuda.cudadrv.nvvm"

    def __init__(self, version):
        self.version, self.requested = version, self.name

    def load(self):
        # numba-cuda-mlir asks the CUDA driver for the device's compute capability even when
        # given cc= (tools.resolve_gpu_target), so it cannot compile without a GPU; udfkit
        # answers for it through its cache of that answer, tools._cached_cc (prepare).
        from numba_cuda_mlir import tools

        if not hasattr(tools, "_cached_cc") or not callable(getattr(tools, "get_gpu_compute_capability", None)):
            raise UdfError(f"numba-cuda-mlir {self.version} in {sys.executable} has no tools._cached_cc, which udfkit "
                           f"sets so that it compiles without a GPU; install the version udfkit pins: "
                           f"{INSTALL_HINT.format(python=sys.executable)}", kind="env")
        from numba_cuda_mlir import cuda  # noqa: F401

    def types(self):
        from numba_cuda_mlir.numba_cuda import types

        return types

    def errors(self):
        from numba_cuda_mlir.numba_cuda.core.errors import NumbaError

        return NumbaError

    def plain_function(self, value):
        """Plain functions, and numba-cuda's device functions (@numba.cuda.jit(device=True))."""
        import types as pytypes

        if type(value).__module__.startswith("numba.cuda.") and isinstance(getattr(value, "py_func", None),
                                                                           pytypes.FunctionType):
            return value.py_func
        return value if isinstance(value, pytypes.FunctionType) else None

    def device_function(self, pyfunc):
        from numba_cuda_mlir import cuda

        return cuda.jit(device=True, annotations_as_signatures=False)(pyfunc)

    def row_error(self):
        """A device function calling the C ABI's udfkit_row_error: numba-cuda-mlir types a
        declared function reached as a module attribute (udfkit.row_error) anew at each
        use, and then cannot unify it with itself; a dispatcher it types once."""
        from numba_cuda_mlir import cuda

        udfkit_row_error = cuda.declare_device("udfkit_row_error", "void(int32)", abi="c")

        def row_error(code):
            udfkit_row_error(code)

        return cuda.jit(device=True, annotations_as_signatures=False)(row_error)

    def before_import(self):
        pass

    def prepare(self, cc):
        from numba_cuda_mlir import tools

        tools._cached_cc = tuple(cc)
        driver_version_without_a_driver()
        locate_typing_errors("numba_cuda_mlir.numba_cuda.core.typeinfer")
        mlir_helpers_named_per_export()

    def check(self, fn, pyfunc, path, line):
        """What numba-cuda-mlir compiles differently from udfkit's C ABI is refused, naming
        the feature: never an artifact that does something else."""
        name = fn["source_name"]
        if any("?" in t for t in fn["params"] + [fn["ret"] or ""]):
            raise UdfError(f"'{name}': nullable types (T?) are not supported under numba-cuda-mlir {self.version}: "
                           f"it cannot compute with, store or pass on an optional value (only return it), which "
                           f"udfkit's C ABI for T? needs; compile it with --python-frontend numba-cuda", path, line)
        if any(t.rstrip("?*") == "string" for t in fn["params"] + [fn["ret"] or ""]):
            raise UdfError(f"'{name}': str parameters and results are not supported under numba-cuda-mlir "
                           f"{self.version}, which has no way to call udfkit's string functions; compile it with "
                           f"--python-frontend numba-cuda", path, line)
        functions, others = referenced(pyfunc)
        for func in functions:
            at = raise_at(func)
            if at is not None:
                where = "" if func is pyfunc else f" (in {func.__qualname__})"
                raise UdfError(f"'{name}' raises an exception{where}: raise and assert are not supported under "
                               f"numba-cuda-mlir {self.version}, which compiles them to an error flag of its own that "
                               f"udfkit's kernels never read (the row would go on as if nothing had failed); call "
                               f"udfkit.row_error(code) instead", func.__code__.co_filename, at)
        for value in others:
            kind = type(value).__module__
            if kind.startswith("numba_cuda_mlir.") and type(value).__name__ == "ExternFunction" and value.link:
                raise UdfError(f"'{name}' calls '{value.name}', declared with cuda.declare_device(..., link=[...]): "
                               f"numba-cuda-mlir {self.version} does not hand back the code such a declaration links; "
                               f"name the files in the module's __udfkit_link__ instead", path, line)
            # numba-cuda-mlir 0.6.0 leaves a float16 argument of such a call out of the call
            # (its parameter is never stored): the callee reads an undefined value.
            if (kind.startswith("numba_cuda_mlir.") and type(value).__name__ == "ExternFunction"
                    and any(arg == self.types().float16 for arg in getattr(value.sig, "args", ()))):
                raise UdfError(f"'{name}' calls '{value.name}' ({value.sig}), declared with cuda.declare_device, with "
                               f"a float16 argument: numba-cuda-mlir {self.version} leaves float16 arguments out of "
                               f"calls to declared functions (the callee would read an undefined value); pass the "
                               f"bits as uint16, or compile it with --python-frontend numba-cuda", path, line)
            if kind.startswith("numba.cuda.") and hasattr(value, "sig") and hasattr(value, "name"):
                raise UdfError(f"'{name}' calls '{value.name}', declared with numba-cuda's cuda.declare_device: under "
                               f"numba-cuda-mlir declare it with its own (from numba_cuda_mlir import cuda)",
                               path, line)

    def nullable_hint(self, c_name, shown):
        return (f": nullable returns (T?) are not supported under numba-cuda-mlir {self.version}; compile it with "
                f"--python-frontend numba-cuda")

    def compile(self, pyfunc, sig, c_name, request):
        global MLIR_EXPORT
        from numba_cuda_mlir import cuda

        MLIR_EXPORT = c_name
        MLIR_CALLEES.clear()
        code, resty = cuda.compile(pyfunc, sig, device=True, abi="c", abi_info={"abi_name": c_name},
                                   output=request["output"], cc=tuple(request["cc"]))
        return [code], resty

    def internal_error(self, exc):
        """numba-cuda-mlir's own failures ("triggered a compiler bug"): the reason, where it
        was, and the log file it writes for each removed."""
        from numba_cuda_mlir.errors import UserFacingInternalCompilerError

        if isinstance(exc, NotImplementedError):
            return f"NotImplementedError: {exc}", None, None
        if not isinstance(exc, UserFacingInternalCompilerError):
            return None
        text, reason = str(exc), "an internal error"
        log = re.search(r"saved to:\s*(\S*numba_cuda_mlir_error_\S*\.log)", text)
        if log:
            try:
                with open(log.group(1)) as f:
                    lines = [ln.strip() for ln in f.read().splitlines() if ln.strip()]
                reason = lines[-1] if lines else reason
                os.unlink(log.group(1))
            except OSError:
                pass
        file, at = error_location(text, None, 0)
        located = file and not file.startswith("<") and os.path.isfile(file)
        return f"{reason} (numba-cuda-mlir's internal error)", (os.path.abspath(file) if located else None), at

    def nvrtc_compile(self, path, cc, ltoir):
        from numba_cuda_mlir.numba_cuda.cudadrv import nvrtc

        with open(path) as f:
            return nvrtc.compile(f.read(), os.path.basename(path), cc, ltoir=ltoir)[0]

    def warm_up(self):
        """One small compile that calls a device function, so that typing, MLIR, NVVM and the
        device-function path are ready in every child."""
        from numba_cuda_mlir import cuda

        self.prepare((7, 5))

        def udfkit_warm_up_helper(x):
            return x * 2.0 + 1.0

        helper = self.device_function(udfkit_warm_up_helper)

        def udfkit_warm_up(x):
            return helper(x) - 1.0

        cuda.compile(udfkit_warm_up, "float32(float32)", device=True, abi="c", abi_info={"abi_name": "udfkit_warm_up"},
                     output="ltoir", cc=(7, 5))

    def before_fork(self):
        """The MLIR context numba-cuda-mlir keeps for every compile runs passes on a pool of
        threads, which a forked child has not: its first compile would wait for them forever.
        The server's context works alone (its pool stopped); a child compiles as fast."""
        from numba_cuda_mlir.lowering_utilities.context import get_context

        get_context().enable_multithreading(False)


def serve_one(conn):
    """In a forked child: one request on `conn`, answered on it. The child says at once that
    it has the request and who it is, so that udfkit can tell a stopped or wedged server
    (no word) and a child that stops while it works from a long compile."""
    conn.sendall(f"udfkit-child {os.getpid()}\n".encode())
    chunks = []
    while True:
        chunk = conn.recv(1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    message = json.loads(b"".join(chunks))
    fd = os.open(message["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)  # what user modules print goes where a worker's would
    os.dup2(fd, 2)
    os.close(fd)
    os.chdir(message["cwd"])
    # Directories that appeared since the server started (on sys.path, PYTHONPATH or as
    # packages) must be found as a fresh worker finds them.
    importlib.invalidate_caches()
    result = handle(message["request"])
    sys.stdout.flush()
    sys.stderr.flush()
    answer(result, conn.fileno())
    conn.close()


def serve(path, idle, frontend):
    import fcntl
    import signal
    import socket

    os.closerange(3, 1 << 16)  # nothing udfkit or its caller had open stays open here
    lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    for attempt in range(20):  # a client's probe holds the lock for an instant
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError:
            time.sleep(0.005)
    else:
        return 0  # another server has it, or is starting
    try:
        choose_frontend(frontend).warm_up()
        FRONTEND.before_fork()
    except Exception:
        return 1  # udfkit falls back to a worker, which says what is wrong
    global FRONTEND_MODULES, ENVIRONMENT_FILES
    FRONTEND_MODULES = frozenset(sys.modules)
    ENVIRONMENT_FILES = environment_files()
    stamp = environment_stamp()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o077)
    server.bind(path)
    os.umask(old_umask)
    server.listen(64)
    server.settimeout(min(idle, 5.0))
    mine = os.stat(path).st_ino
    os.chdir("/")
    last = time.monotonic()
    try:
        while True:
            try:
                conn, _ = server.accept()
            except socket.timeout:
                try:
                    gone = os.stat(path).st_ino != mine
                except OSError:
                    gone = True
                if gone or time.monotonic() - last >= idle:
                    break  # idle, or its socket was removed: nobody can reach it
                continue
            last = time.monotonic()
            conn.settimeout(None)
            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
            if int.from_bytes(creds[4:8], sys.byteorder) != os.getuid():
                conn.close()
                continue
            if environment_stamp() != stamp:
                conn.sendall(json.dumps({"ok": False, "kind": "stale"}).encode())
                conn.close()
                break
            if os.fork() == 0:
                server.close()
                os.close(lock)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                try:
                    serve_one(conn)
                finally:
                    os._exit(0)  # the answer is sent and the streams flushed
            conn.close()
    finally:
        try:
            if os.stat(path).st_ino == mine:
                os.unlink(path)
        except OSError:
            pass
    return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--serve":
        sys.exit(serve(sys.argv[2], float(sys.argv[3]), sys.argv[4]))
    request = json.load(sys.stdin)
    out = os.dup(1)  # the answer's; what user modules print goes to standard error
    os.dup2(2, 1)
    result = handle(request)
    sys.stdout.flush()
    answer(result, out)


main()
