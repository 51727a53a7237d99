// Package testenv says whether the tests run where nothing may be skipped: under `make test`
// (SLOSH_REQUIRE_GL=1) and on CI, a test that cannot do its work fails instead of skipping.
package testenv

import "os"

// Required reports whether tests must not skip: SLOSH_REQUIRE_GL=1, or CI set to anything but "false".
func Required() bool {
	return os.Getenv("SLOSH_REQUIRE_GL") == "1" || os.Getenv("CI") != "" && os.Getenv("CI") != "false"
}
