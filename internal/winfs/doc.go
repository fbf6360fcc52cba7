// Package winfs opens files on Windows the way vfsctl opens them on Linux and macOS
// (openat with O_NOFOLLOW): one path component at a time, relative to the handle of
// the folder that holds it, never through a reparse point.
//
// Every open is NtCreateFile with the folder's handle as RootDirectory and
// FILE_OPEN_REPARSE_POINT, so a symbolic link, a junction or any other reparse point
// is opened as itself, never followed: a junction swapped in for a folder after a path
// was checked cannot take a write outside the workspace. Callers refuse what Info
// reports as a reparse point. Renames and deletions go through a handle of the file
// (NtSetInformationFile), the new name relative to a folder's handle. Names are
// checked before they reach the system (CheckName): a colon would name an alternate
// data stream, "NUL" a device, and a trailing dot or space a name Win32 tools cannot
// open.
//
// The package is empty on other systems.
package winfs
