# Sourced by the bench scripts: start_broker BINARY DIR [broker args...]
# starts a broker on a free loopback port with its data in DIR/data and its
# log in DIR/broker.log, sets $port and $broker, and returns once the port
# accepts connections (or after 10 s; the bench then fails on connecting).
start_broker() {
  local bin="$1" dir="$2"
  shift 2
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$bin" --data-dir "$dir/data" --listen "127.0.0.1:$port" "$@" > "$dir/broker.log" 2>&1 &
  broker=$!
  for _ in $(seq 100); do
    (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && return 0
    sleep 0.1
  done
}
