# syntax=docker/dockerfile:1
# One image for every unit: the compiled single-file `svc` executable on a slim glibc base.
#   docker build --build-arg SVC_BUILD_COMMIT=$(git rev-parse HEAD) -t svc .
#   docker run -p 18080:18080 -e PUBLIC_BASE_URL=https://www.example.com -v web-data:/data svc   # WEB (the default command)
# Production is strict: WEB needs PUBLIC_BASE_URL (and TURNSTILE_SECRET_KEY to take contacts).
#   docker run -p 18086:8080 -e PORT=8080 -v rms-data:/data svc unit rms
# The unit is chosen by the command; each container owns one data volume.

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# patches/: fixes applied to dependencies by patch-package (postinstall); see patches/README.md.
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
ARG SVC_BUILD_COMMIT=unknown
ENV SVC_BUILD_COMMIT=${SVC_BUILD_COMMIT}
RUN npx bun bin/build.ts && ./dist/svc units

FROM debian:bookworm-slim
RUN groupadd --system --gid 10001 svc \
 && useradd --system --uid 10001 --gid svc --home-dir /nonexistent --shell /usr/sbin/nologin svc \
 && mkdir -p /data && chown svc:svc /data
COPY --from=build /src/dist/svc /usr/local/bin/svc
USER svc:svc
WORKDIR /data
ENV SVC_ENV=production \
    SVC_DATA_DIR=/data \
    HOST=0.0.0.0
VOLUME ["/data"]
EXPOSE 18080 8080
STOPSIGNAL SIGTERM
# Never tighter than the spec's limits (interval >= 20 s, timeout 3 s, 5 retries, 30 s start).
# RMS in production: raise --interval to 120s (180s on low-CPU hosts) with `docker run --health-interval`.
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s --retries=5 CMD ["/usr/local/bin/svc", "probe"]
ENTRYPOINT ["/usr/local/bin/svc"]
CMD ["unit", "web"]
