#!/bin/sh
# ctest's entry to nginx_replicas.test.mjs: NODE TEST_FILE. Skips (exit 77) when nginx is not
# installed (scripts/setup.sh installs Debian's nginx); NGINX_BIN=PATH chooses another one.
node=$1
file=$2
if [ ! -x "$node" ]; then
  echo "deploy_nginx_replicas: $node is missing: run scripts/setup.sh" >&2
  exit 1
fi
if [ -n "${NGINX_BIN:-}" ] && [ ! -x "$NGINX_BIN" ]; then
  echo "deploy_nginx_replicas: NGINX_BIN=$NGINX_BIN is not an executable" >&2
  exit 1
fi
if [ -z "${NGINX_BIN:-}" ]; then
  for candidate in "$(command -v nginx 2>/dev/null)" /usr/sbin/nginx /usr/local/sbin/nginx /sbin/nginx; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      NGINX_BIN=$candidate
      break
    fi
  done
fi
if [ -z "${NGINX_BIN:-}" ]; then
  echo "deploy_nginx_replicas: SKIPPED: nginx is not installed (scripts/setup.sh installs Debian's nginx; or set NGINX_BIN)"
  exit 77
fi
export NGINX_BIN
exec "$node" --test "$file"
