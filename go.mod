module github.com/tape-dev/tape

go 1.26.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/oklog/ulid/v2 v2.1.2
)
