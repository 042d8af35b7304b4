#!/bin/sh
# Makes the database cluster in $PGDATA on the first start (role POSTGRES_USER with
# POSTGRES_PASSWORD, database POSTGRES_DB), then runs the server as the postgres user.
set -eu

if [ "$(id -u)" = 0 ]; then
	# A fresh named volume is root's: hand it to postgres, then drop root.
	mkdir -p "$PGDATA"
	chown postgres:postgres "$PGDATA"
	chmod 700 "$PGDATA"
	exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
	password_file=$(mktemp)
	printf '%s\n' "$POSTGRES_PASSWORD" > "$password_file"
	initdb --username="$user" --pwfile="$password_file" --encoding=UTF8 --locale=C.UTF-8 \
		--auth-local=trust --auth-host=scram-sha-256 >/dev/null
	rm -f "$password_file"
	echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
	echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
	if [ "$database" != postgres ]; then
		# On the socket only while the database is made: nobody else can connect yet.
		pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait --silent start
		createdb --username="$user" "$database"
		pg_ctl --pgdata="$PGDATA" --mode=fast --wait --silent stop
	fi
	echo "entrypoint: made the cluster in $PGDATA (role $user, database $database)"
fi

exec "$@"
