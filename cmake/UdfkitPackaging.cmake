# What an install holds beyond the targets and the CMake package.
include_guard(GLOBAL)

# requirements.txt's pins: `udfkit setup-python` makes <prefix>/libexec/udfkit/python from them.
install(FILES "${PROJECT_SOURCE_DIR}/requirements.txt" DESTINATION "${CMAKE_INSTALL_DATADIR}/udfkit")
