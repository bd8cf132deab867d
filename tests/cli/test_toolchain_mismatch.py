"""CUDA parts are loaded on first use, from the library the environment names or the one
found at configure time: a set that cannot work together is refused at start-up with exit
status 3, and so is a library that cannot be loaded or is not the part it should be."""
import os

from harness import data, main, udfkit


def compile_args(work):
    return ("compile", data("udfs.cu"), "-f", "scale:float32(float32, float32)", "-o", os.path.join(work, "x.ltoir"))


def test_newer_nvrtc_than_nvjitlink_is_refused(work):
    env = dict(os.environ, UDFKIT_NVRTC_LIBRARY=os.environ["UDFKIT_FAKE_NVRTC"])
    r = udfkit(*compile_args(work), env=env)
    assert r.rc == 3, r
    assert "nvJitLink 13.0 is older than NVRTC 13.9" in r.err, r.err
    assert "pip install --no-deps nvidia-cuda-nvrtc==13.0." in r.err, r.err
    assert not os.path.exists(os.path.join(work, "x.ltoir"))
    r = udfkit("--version", env=env)
    assert r.rc == 3 and "NVRTC 13.9" in r.out, r
    # The real NVRTC again: its own version, not the one remembered for the other file.
    r = udfkit("--version")
    assert r.rc == 0 and "NVRTC 13.0" in r.out, r


def test_missing_library_is_an_environment_error(work):
    env = dict(os.environ, UDFKIT_NVFATBIN_LIBRARY=os.path.join(work, "libnvfatbin.so.13"))
    r = udfkit(*compile_args(work), env=env)
    assert r.rc == 3, r
    assert "nvFatbin (" in r.err and "cannot be loaded" in r.err and "UDFKIT_NVFATBIN_LIBRARY" in r.err, r.err
    assert not os.path.exists(os.path.join(work, "x.ltoir"))


def test_wrong_library_is_an_environment_error(work):
    env = dict(os.environ, UDFKIT_NVRTC_LIBRARY=os.environ["UDFKIT_FAKE_NVJITLINK"])
    r = udfkit(*compile_args(work), env=env)
    assert r.rc == 3, r
    assert "lacks nvrtc" in r.err and "not the CUDA 13 NVRTC" in r.err, r.err


def test_commands_without_cuda_parts_do_not_load_them(work):
    # Commands that need no CUDA part run with every part unloadable: nothing loads them.
    env = dict(os.environ, **{v: os.path.join(work, "absent.so") for v in
                              ("UDFKIT_NVRTC_LIBRARY", "UDFKIT_NVJITLINK_LIBRARY", "UDFKIT_NVFATBIN_LIBRARY")})
    fatbin = os.path.join(os.environ["UDFKIT_TEST_ARTIFACTS"], "udfs.fatbin")
    for args in (("inspect", fatbin), ("cache", "stats"),
                 ("embed", data("udfs.cu"), "--symbol", "text", "-o", os.path.join(work, "text.c"))):
        r = udfkit(*args, env=env)
        assert r.rc == 0, r


def test_version_lists_every_part(work):
    r = udfkit("--version")
    assert r.rc == 0, r
    for part in ("udfkit ", "NVRTC 13.0", "nvJitLink 13.0", "nvPTXCompiler 13.0", "nvFatbin 13.0", "Python frontend "):
        assert part in r.out, r.out
    # Each part says where it comes from: the file that is loaded.
    lines = {line.split()[0]: line.split()[-1] for line in r.out.splitlines()}
    for part in ("udfkit", "NVRTC", "nvJitLink", "nvFatbin"):
        assert os.path.isabs(lines[part]) and os.path.isfile(lines[part]), (part, r.out)
    env = dict(os.environ, UDFKIT_NVFATBIN_LIBRARY=lines["nvFatbin"])
    assert lines["nvFatbin"] in udfkit("--version", env=env).out


if __name__ == "__main__":
    main([test_newer_nvrtc_than_nvjitlink_is_refused, test_missing_library_is_an_environment_error,
          test_wrong_library_is_an_environment_error, test_commands_without_cuda_parts_do_not_load_them,
          test_version_lists_every_part])
