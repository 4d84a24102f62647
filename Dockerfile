# The release image (.goreleaser.yaml, dockers_v2): the loadgate binary
# GoReleaser built for each platform, on distroless static, which brings CA
# certificates, /etc/passwd with the nonroot user (65532) and nothing else:
# no shell, no package manager. The build context holds
# <os>/<arch>/loadgate; only COPY runs, so the arm64 image needs no emulator.
FROM gcr.io/distroless/static-debian12:nonroot
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/loadgate /usr/local/bin/loadgate
USER 65532:65532
# Scenarios are mounted here and results written here (loadgate-results/
# by default): docs/distributed.md#running-from-the-image.
WORKDIR /work
ENTRYPOINT ["loadgate"]
