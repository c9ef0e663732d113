// Errors a device finds without the host waiting for it. An integer division on a cuda tensor must raise
// ZeroDivisionError when a divisor is 0, but asking the device (a device->host read) on every division would
// stall the host per op. Instead the op queues a flag computed on the device and returns; the next time the
// host waits for that device anyway (a blocking device->host copy, a synchronize), the flag is read and, if
// set, raised there: the way CUDA reports device-side asserts at the next synchronising call.
#pragma once
#include <string>

#include "core/device.h"
#include "core/tensor.h"

namespace tandem {

// `flag` (a 0-dim bool tensor on `device`, computed asynchronously) becomes the device's pending check; the
// caller ORs in the previous one (pending_device_error_flag) so that one flag covers any number of ops.
// `message` is raised as a RuntimeError if the flag is true.
void defer_device_error(Device device, Tensor flag, std::string message);
// The pending flag of `device`, undefined when there is none.
Tensor pending_device_error_flag(Device device);
// Reads and clears the pending flag of `device` (after waiting for the device) and raises its message when
// set. One atomic load when nothing is pending. Called by backend/transfer.cpp at its synchronising
// crossings.
void raise_deferred_device_errors(Device device);

}  // namespace tandem
