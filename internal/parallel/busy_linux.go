package parallel

import "syscall"

// pressureFD is /proc/pressure/cpu (Linux's pressure stall information),
// opened on first use; -1 if it cannot be (a kernel without PSI).
var pressureFD = -2

// cpuPressure returns the "some avg10" figure of /proc/pressure/cpu: the
// percentage of the last ten seconds in which at least one runnable thread
// waited for a CPU.
func cpuPressure() (float64, bool) {
	if pressureFD == -2 {
		fd, err := syscall.Open("/proc/pressure/cpu", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			fd = -1
		}
		pressureFD = fd
	}
	if pressureFD < 0 {
		return 0, false
	}
	var buf [128]byte
	n, err := syscall.Pread(pressureFD, buf[:], 0)
	if err != nil || n <= 0 {
		return 0, false
	}
	return parseAvg10(buf[:n])
}
