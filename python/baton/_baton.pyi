"""baton's native core (use the `baton` package, not this module)"""

from collections.abc import Sequence

import numpy

NDARRAY_HEADER_VERSION: int = 1

NDARRAY_HEADER_SIZE: int = 128

NDARRAY_MAX_DIMS: int = 8

class QoS:
    def __init__(self, depth: int = 10) -> None: ...
    @staticmethod
    def sensor_data() -> QoS: ...
    def keep_last(self, depth: int) -> QoS: ...
    def reliable(self) -> QoS: ...
    def best_effort(self) -> QoS: ...
    def transient_local(self) -> QoS: ...
    def durability_volatile(self) -> QoS: ...
    def reliable_timeout(self, seconds: float) -> QoS: ...
    @property
    def depth(self) -> int: ...
    @property
    def reliability(self) -> str: ...
    @property
    def durability(self) -> str: ...
    @property
    def timeout(self) -> float: ...
    def copy(self) -> QoS: ...
    def __repr__(self) -> str: ...

class Context:
    @staticmethod
    def create(
        janitor_period: float = 0.5, segment_mode: int = 384, graph_registry: str = "registry"
    ) -> Context: ...
    def shutdown(self) -> None: ...
    def ok(self) -> bool: ...
    def reclaim_dead(self) -> int: ...

class Node:
    def __init__(self, context: Context, name: str, namespace: str = "/") -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def namespace(self) -> str: ...
    def get_namespace(self) -> str: ...
    def fully_qualified_name(self) -> str: ...
    def resolve(self, arg: str, /) -> str: ...
    @property
    def context(self) -> Context: ...
    def registered(self) -> bool: ...

class Loan:
    @property
    def is_array(self) -> bool: ...
    @property
    def header_problem(self) -> str:
        """
        Why a message meant as an array is shown as bytes (empty if it is not).
        """

    @property
    def dtype_code(self) -> int: ...
    @property
    def dtype_bits(self) -> int: ...
    @property
    def dtype(self, /) -> numpy.dtype:
        """numpy dtype of the elements (uint8 for bytes)"""

    @property
    def shape(self) -> list[int]: ...
    @property
    def nbytes(self) -> int:
        """bytes of the elements"""

    @property
    def payload_offset(self) -> int:
        """
        where the elements start in the message (128 for arrays: the header comes first)
        """

    @property
    def stamp_ns(self) -> int:
        """Publish time (CLOCK_REALTIME ns) of array messages; 0 if unknown."""

    @property
    def array(self, /) -> numpy.ndarray:
        """A writable numpy view of the loaned chunk (no copy)."""

    def __dlpack__(self, **kwargs) -> object: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...
    @property
    def valid(self) -> bool: ...
    @property
    def capacity(self) -> int: ...
    @property
    def data_ptr(self) -> int: ...

class Publisher:
    def loan(self, shape: Sequence[int] | None = None, nbytes: int | None = None) -> Loan: ...
    def publish(self, loan: Loan) -> None: ...
    def publish_copy(self, data: object) -> None: ...
    def reserve(
        self, count: int, shape: Sequence[int] | None = None, nbytes: int | None = None
    ) -> int: ...
    @property
    def pool(self, /) -> dict[str, int]: ...
    @property
    def subscription_count(self) -> int: ...
    @property
    def topic_name(self) -> str: ...
    @property
    def qos(self) -> QoS: ...
    @property
    def is_array(self) -> bool: ...
    @property
    def shape(self) -> list[int]: ...
    @property
    def dtype_code(self) -> int: ...
    @property
    def dtype_bits(self) -> int: ...

class Sample:
    @property
    def is_array(self) -> bool: ...
    @property
    def header_problem(self) -> str:
        """
        Why a message meant as an array is shown as bytes (empty if it is not).
        """

    @property
    def dtype_code(self) -> int: ...
    @property
    def dtype_bits(self) -> int: ...
    @property
    def dtype(self, /) -> numpy.dtype:
        """numpy dtype of the elements (uint8 for bytes)"""

    @property
    def shape(self) -> list[int]: ...
    @property
    def nbytes(self) -> int:
        """bytes of the elements"""

    @property
    def payload_offset(self) -> int:
        """
        where the elements start in the message (128 for arrays: the header comes first)
        """

    @property
    def stamp_ns(self) -> int:
        """Publish time (CLOCK_REALTIME ns) of array messages; 0 if unknown."""

    @property
    def array(self, /) -> numpy.ndarray:
        """A read-only numpy view of the message (no copy)."""

    def __dlpack__(self, **kwargs) -> object: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...
    @property
    def size(self) -> int: ...
    @property
    def sequence(self) -> int: ...
    @property
    def publisher_slot(self) -> int: ...
    @property
    def source_timestamp(self) -> int:
        """
        When it was published: ns since the epoch on the system clock (the publisher's stamp, what
        `baton bag record` logs it at); 0 from a publisher that does not stamp.
        """

    @property
    def valid(self) -> bool: ...
    @property
    def data_ptr(self) -> int: ...
    def tobytes(self) -> bytes: ...
    def message_bytes(self) -> bytes: ...
    def release(self) -> None:
        """Returns the loan now; views made earlier must not be used afterwards."""

    def __array__(
        self, dtype: object | None = None, copy: object | None = None
    ) -> numpy.ndarray: ...
    def __enter__(self) -> object: ...
    def __exit__(self, *args) -> None: ...
    def __repr__(self) -> object: ...

class SubscriptionBase:
    pass

class Subscription(SubscriptionBase):
    def take(self, timeout: float = 0.0) -> Sample: ...
    def has_data(self) -> bool: ...
    @property
    def lost(self) -> int: ...
    @property
    def publisher_count(self) -> int: ...
    @property
    def topic_name(self) -> str: ...
    @property
    def raw(self) -> bool: ...

class Service(SubscriptionBase):
    @property
    def service_name(self) -> str: ...
    @property
    def srv_type(self) -> str: ...
    @property
    def handled(self) -> int: ...
    @property
    def dropped(self) -> int: ...

class Client(SubscriptionBase):
    def call(self, request: object, timeout: float = -1.0) -> bytes: ...
    def call_async(self, request: object) -> object: ...
    def service_is_ready(self) -> bool: ...
    def wait_for_service(self, timeout: float = -1.0) -> bool: ...
    @property
    def service_name(self) -> str: ...
    @property
    def client_id(self) -> int: ...

def create_service(node: Node, name: str, srv_type: str, qos: QoS, callback: object) -> Service: ...
def create_client(node: Node, name: str, srv_type: str, qos: QoS) -> Client: ...

class DeviceLoan:
    @property
    def is_array(self) -> bool: ...
    @property
    def header_problem(self) -> str:
        """
        Why a message meant as an array is shown as bytes (empty if it is not).
        """

    @property
    def dtype_code(self) -> int: ...
    @property
    def dtype_bits(self) -> int: ...
    @property
    def dtype(self, /) -> numpy.dtype:
        """numpy dtype of the elements (uint8 for bytes)"""

    @property
    def shape(self) -> list[int]: ...
    @property
    def nbytes(self) -> int:
        """bytes of the elements"""

    @property
    def payload_offset(self) -> int:
        """
        where the elements start in the message (128 for arrays: the header comes first)
        """

    @property
    def stamp_ns(self) -> int:
        """Publish time (CLOCK_REALTIME ns) of array messages; 0 if unknown."""

    @property
    def array(self, /) -> numpy.ndarray:
        """
        A numpy view of the elements (read-only for samples), no copy: host-visible
        memory only (else NotHostVisibleError).
        """

    def __dlpack__(self, **kwargs) -> object: ...
    def __array__(
        self, dtype: object | None = None, copy: object | None = None
    ) -> numpy.ndarray: ...
    @property
    def domain(self) -> str: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...
    @property
    def host_visible(self) -> bool:
        """
        True if the CPU addresses the bytes in place (numpy views them without a copy).
        """

    @property
    def data_ptr(self) -> int | None:
        """
        Address of the elements: a host pointer (kDLCPU) or a CUDA device pointer
        (kDLCUDA); None for OpenCL memory the CPU cannot address.
        """

    @property
    def cl_mem(self) -> int | None:
        """
        The OpenCL buffer (cl_mem) holding the whole message, for PyOpenCL:
        pyopencl.Buffer.from_int_ptr(x.cl_mem, retain=True); the elements start at
        payload_offset. Valid while this object lives; None outside OpenCL domains.
        """

    def read(self) -> numpy.ndarray:
        """
        A host copy of the elements as a numpy array (one copy, from any domain).
        """

    def write(self, data: object) -> None:
        """
        Copies a C-contiguous buffer of the loan's element bytes into it (any domain).
        """

    def publish(self) -> None:
        """Publishes the loan (consumes it); the same as publisher.publish(loan)."""

    def __enter__(self) -> object: ...
    def __exit__(self, exc_type: object | None, *rest) -> None: ...
    @property
    def valid(self) -> bool: ...
    @property
    def capacity(self) -> int: ...

class DomainPublisher:
    def loan(self, shape: Sequence[int] | None = None, nbytes: int | None = None) -> DeviceLoan: ...
    def publish(self, loan: DeviceLoan) -> None: ...
    @property
    def domain(self) -> str: ...
    @property
    def info(self) -> dict: ...
    @property
    def topic_name(self) -> str: ...
    @property
    def subscription_count(self) -> int: ...
    @property
    def shape(self) -> list[int]: ...
    @property
    def is_array(self) -> bool: ...

class DomainSample:
    @property
    def is_array(self) -> bool: ...
    @property
    def header_problem(self) -> str:
        """
        Why a message meant as an array is shown as bytes (empty if it is not).
        """

    @property
    def dtype_code(self) -> int: ...
    @property
    def dtype_bits(self) -> int: ...
    @property
    def dtype(self, /) -> numpy.dtype:
        """numpy dtype of the elements (uint8 for bytes)"""

    @property
    def shape(self) -> list[int]: ...
    @property
    def nbytes(self) -> int:
        """bytes of the elements"""

    @property
    def payload_offset(self) -> int:
        """
        where the elements start in the message (128 for arrays: the header comes first)
        """

    @property
    def stamp_ns(self) -> int:
        """Publish time (CLOCK_REALTIME ns) of array messages; 0 if unknown."""

    @property
    def array(self, /) -> numpy.ndarray:
        """
        A numpy view of the elements (read-only for samples), no copy: host-visible
        memory only (else NotHostVisibleError).
        """

    def __dlpack__(self, **kwargs) -> object: ...
    def __array__(
        self, dtype: object | None = None, copy: object | None = None
    ) -> numpy.ndarray: ...
    @property
    def domain(self) -> str: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...
    @property
    def host_visible(self) -> bool:
        """
        True if the CPU addresses the bytes in place (numpy views them without a copy).
        """

    @property
    def data_ptr(self) -> int | None:
        """
        Address of the elements: a host pointer (kDLCPU) or a CUDA device pointer
        (kDLCUDA); None for OpenCL memory the CPU cannot address.
        """

    @property
    def cl_mem(self) -> int | None:
        """
        The OpenCL buffer (cl_mem) holding the whole message, for PyOpenCL:
        pyopencl.Buffer.from_int_ptr(x.cl_mem, retain=True); the elements start at
        payload_offset. Valid while this object lives; None outside OpenCL domains.
        """

    def read(self) -> numpy.ndarray:
        """
        A host copy of the elements as a numpy array (one copy, from any domain).
        """

    @property
    def path(self) -> str:
        """
        zero-copy (the publisher's bytes), shared-copy (a copy another take made)
        or made-copy (this take copied the message into the domain)
        """

    @property
    def size(self) -> int: ...
    @property
    def sequence(self) -> int: ...
    @property
    def valid(self) -> bool: ...
    def release(self) -> None:
        """
        Returns the sample now; views made earlier must not be used afterwards.
        """

    def __enter__(self) -> object: ...
    def __exit__(self, *args) -> None: ...

class DomainSubscription:
    def take(self, timeout: float = 0.0) -> DomainSample: ...
    def has_data(self) -> bool: ...
    @property
    def domain(self) -> str: ...
    @property
    def info(self) -> dict: ...
    @property
    def topic_name(self) -> str: ...
    @property
    def lost(self) -> int: ...
    @property
    def publisher_count(self) -> int: ...
    def domain_copies(self, publisher_slot: int) -> int:
        """
        Copies of publisher slot p's messages made into this domain, by every process.
        """

def create_domain_publisher(
    node: Node,
    topic: str,
    type_name: str,
    layout_facts: str,
    domain: str,
    qos: QoS,
    dtype: tuple[int, int] | None,
    shape: Sequence[int],
) -> DomainPublisher: ...
def create_domain_subscription(
    node: Node,
    topic: str,
    type_name: str,
    layout_facts: str,
    type_hash: str,
    domain: str,
    qos: QoS,
    raw: bool,
) -> DomainSubscription: ...
def domain_info(domain: str) -> dict:
    """
    What a domain's device can do (opens it; DomainUnavailableError if it cannot).
    """

def opencl_compiled_in() -> bool: ...
def list_segments(all_namespaces: bool = False) -> list: ...
def clean_segments(
    dry_run: bool = False, remove_corrupt: bool = False, all_namespaces: bool = False
) -> dict: ...
def inspect_segment(name: str) -> dict:
    """
    Decodes a segment's header and (topic, publisher, data) body; never trusts it.
    """

def segment_prefix() -> str: ...
def segment_name(kind_tag: str, name: str) -> str:
    """
    The shm name of a segment: kind tag 't' (topic), 'p', 'd', 'g', and a user-level name.
    """

def current_namespace() -> str: ...
def ros2_decode(type_name: str, data: bytes) -> object:
    """
    Decodes a CDR message of a ROS 2 type found on AMENT_PREFIX_PATH into a dict.
    """

def ros2_topic_hash(type_name: str) -> str:
    """
    The name-only type hash (hex) of a ROS 2 type's topic (baton raw endpoints).
    """

def ros2_rihs01_topic_hash(type_name: str) -> str | None:
    """
    The RIHS01 type hash (hex) of a ROS 2 type's topic (rmw_baton_cpp, ros2::Publisher), or None if
    its .msg files are not on AMENT_PREFIX_PATH.
    """

HAVE_ROS2_WIRE: bool = True

class Ros2WireNode:
    """
    A ROS 2 node on a DDS participant of ROS_DOMAIN_ID (ROS_AUTOMATIC_DISCOVERY_RANGE /
    ROS_LOCALHOST_ONLY honoured), listed in ros_discovery_info; its publishers go to shared memory
    and the DDS wire.
    """

    def __init__(self, context: Context, name: str, namespace: str = "/") -> None: ...
    def publisher(self, topic: str, type_name: str, qos: QoS) -> Ros2WirePublisher:
        """
        A publisher of serialized messages of ROS 2 type type_name (its .msg on AMENT_PREFIX_PATH).
        """

class Ros2WireLoan:
    @property
    def array(self, /) -> numpy.ndarray:
        """
        A writable numpy view (uint8) of the loaned sample, CDR header included (no copy).
        """

class Ros2WirePublisher:
    @property
    def topic(self) -> str: ...
    def loan(self, nbytes: int) -> Ros2WireLoan:
        """
        A loan for a serialized message of nbytes (CDR header included): write all of it into
        .array, then publish(loan).
        """

    def reserve(self, count: int, nbytes: int) -> None:
        """
        Commits the pool for count loans of up to nbytes (CDR header included) now.
        """

    def publish(self, loan: Ros2WireLoan) -> None: ...
    @property
    def wire_foreign_readers(self) -> int: ...
    @property
    def wire_readers(self) -> int: ...
    @property
    def shm_subscribers(self) -> int: ...
    @property
    def wire_samples(self) -> int: ...

ROS1_NODE_AVAILABLE: bool = True

def ros1_message_type(type_name: str) -> dict:
    """A ROS 1 type's name, genmsg md5sum, full definition and .msg text."""

def ros1_decode(type_name: str, data: bytes) -> object:
    """
    Decodes ROS 1 serialized bytes of a type into a dict (uint8[] fields as bytes).
    """

def ros1_encode(type_name: str, message: object) -> bytes:
    """
    Serializes a dict (or an object with the fields as attributes) as ROS 1.
    """

def ros1_master_pid(master_uri: str, timeout: float = 1.0) -> int: ...
def ros1_system_state(master_uri: str, timeout: float = 1.0) -> dict: ...
def ros1_topic_types(master_uri: str, timeout: float = 1.0) -> list[tuple[str, str]]: ...

class Ros1Sample:
    @property
    def data(self) -> object:
        """The serialized bytes, in place (read-only)."""

    def tobytes(self) -> bytes: ...
    def message(self, in_place: bool = False) -> object: ...
    @property
    def size(self) -> int: ...
    @property
    def data_ptr(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def transport(self) -> str: ...
    @property
    def connection_id(self) -> int: ...
    @property
    def sequence(self) -> int: ...
    @property
    def valid(self) -> bool: ...

class Ros1Node:
    @property
    def name(self) -> str: ...
    @property
    def uri(self) -> str: ...
    @property
    def master_uri(self) -> str: ...
    def resolve(self, arg: str, /) -> str: ...
    def shutdown_requested(self) -> bool: ...
    def advertise(
        self, topic: str, type_name: str, latch: bool = False, queue_size: int = 100
    ) -> Ros1Publisher: ...
    def subscribe(
        self,
        topic: str,
        type_name: str,
        callback: object,
        queue_size: int = 100,
        tcp_nodelay: bool = True,
    ) -> Ros1Subscription: ...
    def log(self, since: int = 0) -> tuple:
        """(lines logged so far, [(level, text)] of those after `since`)"""

    def write_log(self, level: str, text: str) -> None:
        """
        Logs `text` as the node's own lines are: to its log and, at info or above, /rosout.
        """

    def close(self) -> None: ...

class Ros1Publisher:
    @property
    def topic(self) -> str: ...
    @property
    def type(self) -> dict: ...
    def publish(self, message: object) -> object: ...
    def publish_serialized(self, data: object) -> object: ...
    @property
    def subscriber_count(self) -> int: ...
    def wait_for_tcpros_subscribers(self, n: int = 1, timeout: float = -1.0) -> bool: ...
    def wait_until_sent(self, timeout: float = -1.0) -> bool: ...
    @property
    def wire_stats(self) -> dict: ...
    @property
    def shm_stats(self) -> dict: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...

class Ros1Subscription:
    @property
    def topic(self) -> str: ...
    @property
    def type(self) -> dict: ...
    @property
    def publisher_count(self) -> int: ...
    def wait_for_publishers(self, n: int = 1, timeout: float = -1.0) -> bool: ...
    @property
    def wire_stats(self) -> dict: ...
    @property
    def shm_stats(self) -> dict: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...

def ros1_create_node(
    name: str,
    master_uri: str = "",
    host: str = "",
    namespace: str = "",
    arguments: Sequence[str] = [],
    shared_memory: bool = True,
    rpc_timeout: float = 5.0,
    context: Context | None = None,
    echo_log: bool = True,
    rosout: bool = True,
) -> Ros1Node: ...

class RecordSubscription(SubscriptionBase):
    @property
    def topic_id(self) -> int: ...
    @property
    def capacity(self) -> int: ...
    @property
    def lost(self) -> int: ...
    @property
    def publisher_count(self) -> int: ...
    @property
    def topic_name(self) -> str: ...

class RecordTaker:
    def __init__(self) -> None: ...
    def add(self, subscription: RecordSubscription) -> None: ...
    def remove(self, subscription: RecordSubscription) -> bool: ...
    def interrupt(self) -> None: ...
    def take_batch(
        self, timeout: float, linger: float = 0.0, max_count: int = 256
    ) -> list[tuple[int, int, Sample]]: ...

def create_record_subscription(
    node: Node, topic: str, type_name: str, type_hash: str, qos: QoS, topic_id: int, capacity: int
) -> RecordSubscription:
    """
    A best-effort, raw subscription for a RecordTaker (the recorder's; no callback).
    """

class Executor:
    def __init__(
        self,
        context: Context,
        threads: int = 0,
        multi_threaded: bool = False,
        wait_mode: str = "blocking",
    ) -> None: ...
    def add_node(self, node: Node) -> None: ...
    def add_subscription(self, entity: SubscriptionBase) -> None: ...
    def remove_subscription(self, entity: SubscriptionBase) -> bool: ...
    def spin_once(self, timeout: float = -1.0) -> bool: ...
    def spin_some(self, max_duration: float = 0.0) -> None: ...
    def spin(self) -> None: ...
    def cancel(self) -> None: ...

def create_publisher(
    node: Node,
    topic: str,
    type_name: str,
    layout_facts: str,
    type_hash: str,
    qos: QoS,
    is_array: bool,
    dtype_code: int,
    dtype_bits: int,
    shape: Sequence[int],
    max_message_size: int,
    reserve_count: int = 0,
    reserve_nbytes: int | None = None,
) -> Publisher: ...
def create_subscription(
    node: Node,
    topic: str,
    type_name: str,
    layout_facts: str,
    type_hash: str,
    qos: QoS,
    raw: bool,
    wait_mode: str,
    callback: object | None,
) -> Subscription: ...
def graph_snapshot(context: Context) -> dict: ...
def defaults() -> dict:
    """The core's built-in defaults (ContextOptions, PoolConfig, QoS, ...)"""

def resolve_topic_name(name: str, namespace: str = "/", node_name: str = "") -> str: ...
def topic_type_hash(type_name: str, layout_facts: str = "") -> str:
    """
    The type hash (hex) endpoints of this type name and layout facts attach with.
    """
