module github.com/vfsctl/vfsctl

go 1.26.0

require (
	github.com/spf13/afero v1.15.0
	golang.org/x/text v0.44.0
)
