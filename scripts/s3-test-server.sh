# Sourced by tests/c.sh and tests/docs.sh: `start_s3_test_server WHO` starts the loopback S3 test
# server (moto_server, signatures checked; installed by scripts/ensure-s3-server.sh) as the
# coprocess S3 and exports the AWS_* and TICKREEL_S3_BUCKET variables the examples read. It stops
# when the sourcing shell exits (its stdin closes). Failing to start fails WHO.
start_s3_test_server() {
  local who="$1" line vars=0
  scripts/ensure-s3-server.sh
  # As `cargo test` built its dependencies (scripts/test-build.sh): nothing compiles again.
  source scripts/test-build.sh
  test_build -q
  coproc S3 { "${CARGO_TARGET_DIR:-target}/debug/examples/s3_test_server"; }
  while IFS= read -r line <&"${S3[0]}"; do
    [ "$line" = READY ] && break
    case "$line" in AWS_*=*|TICKREEL_S3_BUCKET=*) export "${line?}"; vars=$((vars + 1)) ;; esac
  done
  [ "$vars" -ge 6 ] || { echo "$who: the S3 test server did not start" >&2; exit 1; }
}
