package tensor

import "sync"

// Device names where a tensor's raw data lives. Devices are registered by
// name; CPU and Meta always exist.
type Device uint16

// The built-in devices.
const (
	CPU  Device = 0
	Meta Device = 1
)

// DeviceHooks are what the framework needs from a device to read values
// back: conversion of raw data to a CPU tensor and from a CPU tensor.
type DeviceHooks struct {
	// ToCPU returns a CPU tensor with the values of t (a tensor on this device).
	ToCPU func(t *Tensor) *Tensor
	// FromCPU returns a tensor on this device holding the values of the CPU tensor t.
	FromCPU func(t *Tensor) *Tensor
	// Functionalize marks a device without native views or in-place ops:
	// tensors the framework creates on it carry KeyFunctionalize, and
	// package functional turns views and mutation into functional ops.
	Functionalize bool
}

var (
	devMu      sync.RWMutex
	devNames   = []string{"cpu", "meta"}
	devHooks   = []DeviceHooks{{}, {}}
	devByName  = map[string]Device{"cpu": CPU, "meta": Meta}
	maxDevices = 64
)

// RegisterDevice adds a device by name and returns its handle. Registering a
// name twice panics.
func RegisterDevice(name string, hooks DeviceHooks) Device {
	devMu.Lock()
	defer devMu.Unlock()
	if _, ok := devByName[name]; ok {
		panic("tensor: device " + name + " registered twice")
	}
	if len(devNames) >= maxDevices {
		panic("tensor: too many devices")
	}
	d := Device(len(devNames))
	devNames = append(devNames, name)
	devHooks = append(devHooks, hooks)
	devByName[name] = d
	return d
}

// SetDeviceHooks sets the conversion hooks of a built-in device.
func SetDeviceHooks(d Device, hooks DeviceHooks) {
	devMu.Lock()
	defer devMu.Unlock()
	devHooks[d] = hooks
}

// LookupDevice finds a device by name ("cpu", "meta", "cpu:0" is cpu).
func LookupDevice(name string) (Device, bool) {
	if name == "cpu:0" {
		name = "cpu"
	}
	devMu.RLock()
	defer devMu.RUnlock()
	d, ok := devByName[name]
	return d, ok
}

// Devices lists every registered device.
func Devices() []Device {
	devMu.RLock()
	defer devMu.RUnlock()
	out := make([]Device, len(devNames))
	for i := range out {
		out[i] = Device(i)
	}
	return out
}

func (d Device) String() string {
	devMu.RLock()
	defer devMu.RUnlock()
	if int(d) < len(devNames) {
		return devNames[d]
	}
	return "unknown"
}

// DeviceHooksOf returns the hooks registered for d.
func DeviceHooksOf(d Device) DeviceHooks { return d.hooks() }

func (d Device) hooks() DeviceHooks {
	devMu.RLock()
	defer devMu.RUnlock()
	return devHooks[d]
}

// MemoryFormat is PyTorch's torch.memory_format.
type MemoryFormat uint8

// Memory formats.
const (
	ContiguousFormat MemoryFormat = iota
	PreserveFormat
	ChannelsLast
	ChannelsLast3d
)

func (m MemoryFormat) String() string {
	return [...]string{"contiguous_format", "preserve_format", "channels_last", "channels_last_3d"}[m]
}

// Layout is PyTorch's torch.layout; only strided exists here.
type Layout uint8

// Layouts.
const Strided Layout = 0

func (Layout) String() string { return "strided" }
