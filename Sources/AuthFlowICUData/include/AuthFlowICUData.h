// AuthFlowICUData has no C interface: its one object holds ICU's data for
// the release executable on Linux (ICUData.S).
