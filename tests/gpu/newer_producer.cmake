# A copy of the manifest IN, beside it, that says NVRTC 99.0 made its code (OUT): a package
# newer than any nvJitLink 13, for the late binding test.
file(READ "${IN}" _json)
string(JSON _json SET "${_json}" producers nvrtc "\"99.0\"")
file(WRITE "${OUT}" "${_json}\n")
