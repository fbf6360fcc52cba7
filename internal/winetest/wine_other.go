//go:build !windows

package winetest

func wine() bool { return false }
