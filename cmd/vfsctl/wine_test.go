//go:build windows && wine

package main

// Under Wine, os.Remove needs the standard library's fallback (internal/winetest).
import _ "github.com/vfsctl/vfsctl/internal/winetest"
