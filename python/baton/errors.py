"""baton's exceptions: one subclass of :class:`BatonError` per thing a person can act on.

Every error carries ``code`` (the C++ enumerator it came from, e.g. ``"TypeMismatch"``),
``detail`` (what happened, naming the topic / segment and what was found vs expected) and
``hint`` (what to do). ``str(err)`` is ``detail``; the CLI prints ``error: <detail>`` and
``hint: <hint>`` and exits with ``err.exit_code``.
"""

from __future__ import annotations


class BatonError(Exception):
    """Base of every baton error."""

    code = "Internal"
    hint = "this looks like a bug in baton: please report it with the command that failed"
    exit_code = 1

    def __init__(self, detail: str = "", *, code: str | None = None, hint: str | None = None):
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        if hint is not None:
            self.hint = hint


class InvalidNameError(BatonError, ValueError):
    code = "InvalidName"
    hint = "use a ROS name: letters, digits, '_' and '/', not starting with a digit"
    exit_code = 2


class InvalidQosError(BatonError, ValueError):
    code = "InvalidQos"
    hint = "keep_last depth must be 1..65536"
    exit_code = 2


class InvalidShapeError(BatonError, ValueError):
    code = "InvalidShape"
    hint = "pass a shape of at most 8 non-negative extents (or nbytes= for raw publishers)"
    exit_code = 2


class TopicNotFoundError(BatonError, LookupError):
    code = "TopicNotFound"
    hint = (
        "check the name with `baton topic list`; a topic exists only while a publisher or "
        "subscription holds it; all parties must use the same BATON_NAMESPACE"
    )
    exit_code = 3


class SegmentNotFoundError(BatonError, LookupError):
    code = "SegmentNotFound"
    hint = (
        "list this namespace's segments with `baton shm list` (--all-namespaces for every "
        "BATON_NAMESPACE); a segment goes away with its last participant or `baton clean`"
    )
    exit_code = 3


class ServiceUnavailableError(BatonError):
    code = "ServiceUnavailable"
    hint = "start the service (check `baton service list`), or wait longer (--timeout)"
    exit_code = 3


class TypeMismatchError(BatonError, TypeError):
    code = "TypeMismatch"
    hint = (
        "use the topic's type (see `baton topic info <topic>`), or another topic name; for "
        "arrays the dtype is part of the type"
    )
    exit_code = 4


class PermissionDeniedError(BatonError, PermissionError):
    code = "PermissionDenied"
    hint = (
        "the segment belongs to another user: run as that user, ask them to share it with your "
        "group (Context(segment_mode=0o660)), or let its owner run `baton clean`; "
        "`baton doctor` checks /dev/shm"
    )
    exit_code = 5


class CorruptSegmentError(BatonError):
    code = "Corrupt"
    hint = "the topic's segment failed validation: `baton clean --remove-corrupt` removes it"
    exit_code = 6


class SegmentError(BatonError, OSError):
    code = "SegmentFailure"
    hint = "/dev/shm refused the segment (full, or a limit): run `baton doctor`, then `baton clean`"
    exit_code = 6


class NoFreeSlotError(BatonError):
    code = "NoFreeSlot"
    hint = "the topic has its maximum of publishers or subscriptions: close some endpoints"
    exit_code = 7


class ContextShutDownError(BatonError):
    code = "ContextShutDown"
    hint = "create endpoints before Context.shutdown()"


class MissingCallbackError(BatonError, ValueError):
    code = "MissingCallback"
    hint = "call .callback(fn) before .create()"
    exit_code = 2


class LoanError(BatonError):
    code = "OutOfMemory"
    hint = "release samples and loans you hold, or raise the publisher's max_message_size"


class LoanTooLargeError(LoanError):
    code = "LoanTooLarge"
    hint = "create the publisher with .max_message_size(bytes) large enough for the message"


class ReservationError(LoanError):
    code = "ReservationFailed"
    hint = (
        "reserve fewer messages, raise the publisher's max_pool_bytes / max_message_size, or "
        "free /dev/shm (`baton doctor`)"
    )


class InvalidLoanError(BatonError):
    code = "InvalidLoan"
    hint = "a loan is published once, by the publisher that made it; loan again for a new message"


class PublishTimeoutError(BatonError, TimeoutError):
    code = "ReliableTimeout"
    hint = "a reliable subscriber is not reading: use best_effort() or a longer reliable_timeout"


class TooManyLoansError(BatonError):
    code = "TooManyLoans"
    hint = "drop samples you no longer need (del sample, or take them in a `with` block)"


class ServiceTimeoutError(BatonError, TimeoutError):
    code = "Timeout"
    hint = "the service got the request but did not answer in time: check it is spinning"
    exit_code = 8


class SendFailedError(BatonError):
    code = "SendFailed"
    hint = "the request could not be published: the service is flooded, try again"


class ExecutorError(BatonError):
    code = "Executor"
    hint = "a node belongs to at most one executor: remove it from the other one first"


class GraphError(BatonError):
    code = "Graph"
    hint = "discovery is unavailable: run `baton doctor`; `baton clean` removes a stale registry"
    exit_code = 6


class NoOpenCLDeviceError(BatonError):
    code = "NoOpenCLDevice"
    hint = (
        "install an OpenCL ICD (e.g. Debian's pocl-opencl-icd) and check `clinfo`; host memory "
        "works without one"
    )
    exit_code = 9


class DomainUnavailableError(BatonError):
    code = "DomainUnavailable"
    hint = (
        "check the domain name (host, staging, opencl:<n>[:sc], cuda:<n>) and that the device is "
        "there: `baton doctor` lists OpenCL devices and CUDA presence"
    )
    exit_code = 9


class NotHostVisibleError(BatonError, BufferError):
    code = "NotHostVisible"
    hint = (
        "pass .cl_mem to PyOpenCL (pyopencl.Buffer.from_int_ptr(x.cl_mem, retain=True); elements "
        "start at .payload_offset), copy explicitly with .read() / .write(), or use a domain the "
        "CPU addresses in place (e.g. 'opencl:0' without ':sc' on a host-unified device, 'host')"
    )


class DomainCopyFailedError(BatonError):
    code = "DomainCopyFailed"
    hint = "the device refused a copy (full, or a driver error): release samples, check the driver"


class Ros2DecodeError(BatonError):
    code = "Ros2Decode"
    hint = (
        "the ROS 2 type's .msg must be on AMENT_PREFIX_PATH (source your ROS setup), and the "
        "bytes must be CDR of that type"
    )


class Ros2UnknownTypeError(BatonError, LookupError):
    code = "Ros2UnknownType"
    hint = (
        "the ROS 2 type's .msg must be on AMENT_PREFIX_PATH (source your ROS setup, or point it "
        "at a prefix whose share/<pkg>/msg holds it)"
    )
    exit_code = 3


class Ros2WireError(BatonError):
    """The DDS wire could not be used: no participant, an endpoint refused, a write failed."""

    code = "Ros2Wire"
    hint = (
        "check ROS_DOMAIN_ID (0-232), that rmw_dds_common's .msg files are on AMENT_PREFIX_PATH, "
        "and that baton was built with CycloneDDS (cyclonedds-dev)"
    )


class Ros1MasterError(BatonError, ConnectionError):
    """The ROS master cannot be used (base of the two below and of a master that refused)."""

    code = "Ros1MasterFailed"
    hint = "the ROS master refused the call: check it with `baton doctor` and its log"
    exit_code = 11


class Ros1NoMasterUriError(Ros1MasterError):
    code = "Ros1NoMasterUri"
    hint = (
        "set ROS_MASTER_URI to the master's http://host:port/ (roscore prints it), e.g. "
        "export ROS_MASTER_URI=http://127.0.0.1:11311/"
    )


class Ros1MasterUnreachableError(Ros1MasterError):
    code = "Ros1MasterUnreachable"
    hint = "start roscore, or point ROS_MASTER_URI at the running master; `baton doctor` checks it"


class Ros1UnknownTypeError(BatonError, LookupError):
    code = "Ros1UnknownType"
    hint = (
        "name a ROS 1 type as pkg/Type whose .msg is installed (/usr/share/<pkg>/msg, e.g. "
        "Debian's ros-*-msgs packages) or on ROS_PACKAGE_PATH"
    )
    exit_code = 3


class Ros1Md5MismatchError(TypeMismatchError):
    code = "Ros1Md5Mismatch"
    hint = (
        "both ends must use the same message definition: the md5sums differ, so one side was "
        "built from another version of the .msg (or another type); rebuild or use the same type"
    )


class Ros1DecodeError(BatonError, ValueError):
    code = "Ros1Decode"
    hint = "the bytes are not a ROS 1 serialization of that type (wrong type, or truncated)"


class Ros1Error(BatonError):
    """A ROS 1 endpoint problem: a closed endpoint, a duplicate, a network failure."""

    code = "Ros1"
    hint = (
        "check ROS_IP / ROS_HOSTNAME (other nodes must reach this address) and that the "
        "endpoint is open and not made twice on one node"
    )


_BY_CODE = {
    cls.code: cls
    for cls in (
        InvalidNameError,
        InvalidQosError,
        InvalidShapeError,
        TopicNotFoundError,
        SegmentNotFoundError,
        ServiceUnavailableError,
        TypeMismatchError,
        PermissionDeniedError,
        CorruptSegmentError,
        SegmentError,
        NoFreeSlotError,
        ContextShutDownError,
        MissingCallbackError,
        LoanError,
        LoanTooLargeError,
        ReservationError,
        InvalidLoanError,
        PublishTimeoutError,
        TooManyLoansError,
        ServiceTimeoutError,
        SendFailedError,
        ExecutorError,
        GraphError,
        NoOpenCLDeviceError,
        DomainUnavailableError,
        NotHostVisibleError,
        DomainCopyFailedError,
        Ros2DecodeError,
        Ros2UnknownTypeError,
        Ros2WireError,
        Ros1MasterError,
        Ros1NoMasterUriError,
        Ros1MasterUnreachableError,
        Ros1UnknownTypeError,
        Ros1Md5MismatchError,
        Ros1DecodeError,
    )
}


def _from_core(code: str, detail: str) -> BatonError:
    """Builds the exception for a C++ error code (called by the extension)."""
    cls = _BY_CODE.get(code)
    if cls is None:
        cls = Ros1Error if code.startswith("Ros1") else BatonError
    return cls(detail, code=code)


__all__ = [name for name in dir() if name.endswith("Error")]
