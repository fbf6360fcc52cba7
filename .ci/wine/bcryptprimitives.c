/*
 * ProcessPrng for Wine 8, which has no bcryptprimitives.dll: Go's runtime (1.22 and
 * later) takes its random bytes from that function and stops at start without it.
 * This stand-in, used only to run the Windows test binaries under Wine in CI, asks
 * RtlGenRandom (advapi32's SystemFunction036) for the same bytes. It never ships.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
