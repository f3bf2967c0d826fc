# The Debian package: `cpack -G DEB` in a build directory writes
# gpudoctor_<version>_<arch>.deb with the binary (Unspecified component, what
# scripts/install.sh installs) and, in the "package" component, what a fleet
# roll-out needs: the systemd unit (enabled by the admin, not by the
# package), /etc/gpudoctor/config.toml (a conffile), the Prometheus alert
# rules, the node-problem-detector, Slurm and Kubernetes files under
# /usr/share/gpudoctor, and a man page made by help2man from the CLI's own
# --help. Depends comes from dpkg-shlibdeps on the binary.

set(GPUDOCTOR_PACKAGE_PREFIX /usr)
set(GPUDOCTOR_PACKAGE_BINDIR ${GPUDOCTOR_PACKAGE_PREFIX}/bin)

# The unit as shipped in deploy/ runs /usr/local/bin/gpudoctor (what
# scripts/install.sh installs); the package's runs its own binary.
file(READ ${PROJECT_SOURCE_DIR}/deploy/systemd/gpudoctor-agent.service unit_text)
string(REPLACE "/usr/local/bin/gpudoctor" "${GPUDOCTOR_PACKAGE_BINDIR}/gpudoctor" unit_text
       "${unit_text}")
string(REPLACE "# Install: cp deploy/systemd/gpudoctor-agent.service /etc/systemd/system/\n"
       "# Installed by the gpudoctor package; it is not enabled until you enable it:\n"
       unit_text "${unit_text}")
string(REPLACE "#          systemctl daemon-reload && systemctl enable --now gpudoctor-agent"
       "#          systemctl enable --now gpudoctor-agent" unit_text "${unit_text}")
file(WRITE ${CMAKE_BINARY_DIR}/package/gpudoctor-agent.service "${unit_text}")
install(FILES ${CMAKE_BINARY_DIR}/package/gpudoctor-agent.service
        DESTINATION /lib/systemd/system COMPONENT package)

install(FILES ${PROJECT_SOURCE_DIR}/deploy/config.example.toml DESTINATION /etc/gpudoctor
        RENAME config.toml COMPONENT package)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/config.example.toml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpudoctor COMPONENT package)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/prometheus/gpudoctor-alerts.yml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpudoctor/prometheus COMPONENT package)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/deploy/node-problem-detector
                  ${PROJECT_SOURCE_DIR}/deploy/kubernetes
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpudoctor COMPONENT package
        PATTERN gpudoctor-plugin.json EXCLUDE)
# node-problem-detector refuses to start when a rule's "path" is missing: the
# packaged plugin runs the package's binary, not /usr/local/bin/gpudoctor.
file(READ ${PROJECT_SOURCE_DIR}/deploy/node-problem-detector/gpudoctor-plugin.json npd_text)
string(REPLACE "\"/usr/local/bin/gpudoctor\"" "\"${GPUDOCTOR_PACKAGE_BINDIR}/gpudoctor\"" npd_text
       "${npd_text}")
file(WRITE ${CMAKE_BINARY_DIR}/package/gpudoctor-plugin.json "${npd_text}")
install(FILES ${CMAKE_BINARY_DIR}/package/gpudoctor-plugin.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpudoctor/node-problem-detector COMPONENT package)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/deploy/slurm DESTINATION ${CMAKE_INSTALL_DATADIR}/gpudoctor
        COMPONENT package USE_SOURCE_PERMISSIONS)

# The man page, from the binary's own --help and --version.
find_program(HELP2MAN help2man)
if(HELP2MAN)
  set(man_page ${CMAKE_BINARY_DIR}/package/gpudoctor.1)
  set(man_commands ${CMAKE_BINARY_DIR}/package/gpudoctor-commands.h2m)
  add_custom_command(
    OUTPUT ${man_page}.gz
    COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/man_commands.sh $<TARGET_FILE:gpudoctor> ${man_commands}
    COMMAND ${CMAKE_COMMAND} -E env LC_ALL=C LANG=C ${HELP2MAN} --no-info --no-discard-stderr --section 1
            --name "why a GPU server stutters or loses GPUs" --include ${man_commands}
            --output ${man_page} $<TARGET_FILE:gpudoctor>
    COMMAND gzip -9nf ${man_page}
    DEPENDS gpudoctor ${PROJECT_SOURCE_DIR}/scripts/man_commands.sh
    COMMENT "man page (help2man, every subcommand's --help)")
  add_custom_target(gpudoctor_man ALL DEPENDS ${man_page}.gz)
  install(FILES ${man_page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT package)
else()
  message(STATUS "help2man not found: the package will have no man page "
                 "(apt-get install help2man)")
endif()

set(CPACK_PACKAGE_NAME gpudoctor)
set(CPACK_PACKAGE_VENDOR "gpudoctor")
set(CPACK_PACKAGE_CONTACT "gpudoctor maintainers <gpudoctor@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "finds why a GPU server stutters or loses GPUs")
set(CPACK_PACKAGE_DESCRIPTION
    "gpudoctor reads NVML, the kernel log and the host to explain why a GPU\n"
    "server stutters or loses GPUs (thermal and power slowdowns, Xid errors,\n"
    "PCIe and NVLink faults, driver mismatches) and says what to do about it.\n"
    "It includes an agent that records history and serves Prometheus metrics.")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX ${GPUDOCTOR_PACKAGE_PREFIX})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "man-db")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "prometheus")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/deploy/debian/conffiles ${PROJECT_SOURCE_DIR}/deploy/debian/postinst
    ${PROJECT_SOURCE_DIR}/deploy/debian/postrm ${PROJECT_SOURCE_DIR}/deploy/debian/prerm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_GENERATOR DEB)
include(CPack)
