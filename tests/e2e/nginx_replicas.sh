#!/bin/sh
# ctest's entry to nginx_replicas.test.mjs: NODE TEST_FILE. Skips (exit 77) when nginx is not
# installed (scripts/setup.sh installs Debian's nginx); NGINX=PATH chooses another one.
node=$1
file=$2
if [ ! -x "$node" ]; then
  echo "deploy_nginx_replicas: $node is missing: run scripts/setup.sh" >&2
  exit 1
fi
if [ -n "${NGINX:-}" ] && [ ! -x "$NGINX" ]; then
  echo "deploy_nginx_replicas: NGINX=$NGINX is not an executable" >&2
  exit 1
fi
if [ -z "${NGINX:-}" ]; then
  for candidate in "$(command -v nginx 2>/dev/null)" /usr/sbin/nginx /usr/local/sbin/nginx /sbin/nginx; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      NGINX=$candidate
      break
    fi
  done
fi
if [ -z "${NGINX:-}" ]; then
  echo "deploy_nginx_replicas: SKIPPED: nginx is not installed (scripts/setup.sh installs Debian's nginx; or set NGINX)"
  exit 77
fi
export NGINX
exec "$node" --test "$file"
