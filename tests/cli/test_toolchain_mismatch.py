"""A CUDA part set that cannot work together is refused at start-up with exit status 3."""
import os

from harness import data, main, udfkit


def test_newer_nvrtc_than_nvjitlink_is_refused(work):
    if os.environ.get("UDFKIT_SANITIZED", "0") not in ("0", "", "false", "FALSE"):
        print("sanitized build: ASan must come first in the preload list, skipped")
        return
    env = dict(os.environ, LD_PRELOAD=os.environ["UDFKIT_FAKE_NVRTC"])
    r = udfkit("compile", data("udfs.cu"), "-f", "scale:float32(float32, float32)", "-o",
               os.path.join(work, "x.ltoir"), env=env)
    assert r.rc == 3, r
    assert "nvJitLink 13.0 is older than NVRTC 13.9" in r.err, r.err
    assert "pip install -r requirements.txt" in r.err
    assert not os.path.exists(os.path.join(work, "x.ltoir"))
    r = udfkit("--version", env=env)
    assert r.rc == 3 and "NVRTC 13.9" in r.out, r


def test_version_lists_every_part(work):
    r = udfkit("--version")
    assert r.rc == 0, r
    for part in ("udfkit ", "NVRTC 13.0", "nvJitLink 13.0", "nvPTXCompiler 13.0", "nvFatbin 13.0", "Python frontend "):
        assert part in r.out, r.out


if __name__ == "__main__":
    main([test_newer_nvrtc_than_nvjitlink_is_refused, test_version_lists_every_part])
