# In the toolkit's checkout: a throwaway PostgreSQL 15 on 127.0.0.1 (installs Debian's postgresql
# when it is missing). The last line it prints is the server's folder; DIR/url holds its address.
server="$(bash ci/postgres start | tail -n 1)"
export TOOLKIT_POSTGRES_URL="$(cat "$server/url")"

# In your package, with the variable set:
swift run Notes

# When you are done: stop the server and remove its folder.
bash ci/postgres stop "$server"
