from google.protobuf import struct_pb2 as _struct_pb2
from herald.v1 import subscribers_pb2 as _subscribers_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TriggerEventRequest(_message.Message):
    __slots__ = ("name", "payload", "overrides", "to", "transaction_id", "actor", "tenant", "exclude")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_FIELD_NUMBER: _ClassVar[int]
    name: str
    payload: _struct_pb2.Struct
    overrides: _struct_pb2.Struct
    to: _containers.RepeatedCompositeFieldContainer[TriggerRecipient]
    transaction_id: str
    actor: TriggerActor
    tenant: TriggerTenant
    exclude: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., payload: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., overrides: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., to: _Optional[_Iterable[_Union[TriggerRecipient, _Mapping]]] = ..., transaction_id: _Optional[str] = ..., actor: _Optional[_Union[TriggerActor, _Mapping]] = ..., tenant: _Optional[_Union[TriggerTenant, _Mapping]] = ..., exclude: _Optional[_Iterable[str]] = ...) -> None: ...

class TriggerRecipient(_message.Message):
    __slots__ = ("subscriber_id", "subscriber", "other", "topic")
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_FIELD_NUMBER: _ClassVar[int]
    OTHER_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    subscriber: TriggerSubscriber
    other: _struct_pb2.Struct
    topic: TriggerTopic
    def __init__(self, subscriber_id: _Optional[str] = ..., subscriber: _Optional[_Union[TriggerSubscriber, _Mapping]] = ..., other: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., topic: _Optional[_Union[TriggerTopic, _Mapping]] = ...) -> None: ...

class TriggerSubscriber(_message.Message):
    __slots__ = ("subscriber_id", "email", "first_name", "last_name", "phone", "avatar", "locale", "data", "channels", "timezone")
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    FIRST_NAME_FIELD_NUMBER: _ClassVar[int]
    LAST_NAME_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    LOCALE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    TIMEZONE_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    email: str
    first_name: str
    last_name: str
    phone: str
    avatar: str
    locale: str
    data: _struct_pb2.Struct
    channels: _containers.RepeatedCompositeFieldContainer[_subscribers_pb2.SubscriberChannel]
    timezone: str
    def __init__(self, subscriber_id: _Optional[str] = ..., email: _Optional[str] = ..., first_name: _Optional[str] = ..., last_name: _Optional[str] = ..., phone: _Optional[str] = ..., avatar: _Optional[str] = ..., locale: _Optional[str] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., channels: _Optional[_Iterable[_Union[_subscribers_pb2.SubscriberChannel, _Mapping]]] = ..., timezone: _Optional[str] = ...) -> None: ...

class TriggerTopic(_message.Message):
    __slots__ = ("topic_key",)
    TOPIC_KEY_FIELD_NUMBER: _ClassVar[int]
    topic_key: str
    def __init__(self, topic_key: _Optional[str] = ...) -> None: ...

class TriggerActor(_message.Message):
    __slots__ = ("subscriber_id", "subscriber")
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    subscriber: TriggerSubscriber
    def __init__(self, subscriber_id: _Optional[str] = ..., subscriber: _Optional[_Union[TriggerSubscriber, _Mapping]] = ...) -> None: ...

class TriggerTenant(_message.Message):
    __slots__ = ("identifier", "tenant")
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    identifier: str
    tenant: Tenant
    def __init__(self, identifier: _Optional[str] = ..., tenant: _Optional[_Union[Tenant, _Mapping]] = ...) -> None: ...

class Tenant(_message.Message):
    __slots__ = ("identifier", "name", "data")
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    identifier: str
    name: str
    data: _struct_pb2.Struct
    def __init__(self, identifier: _Optional[str] = ..., name: _Optional[str] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class TriggerEventStatusEnum(_message.Message):
    __slots__ = ()
    class TriggerEventStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TRIGGER_EVENT_STATUS_UNSPECIFIED: _ClassVar[TriggerEventStatusEnum.TriggerEventStatus]
        error: _ClassVar[TriggerEventStatusEnum.TriggerEventStatus]
        trigger_not_active: _ClassVar[TriggerEventStatusEnum.TriggerEventStatus]
        no_workflow_active_steps_defined: _ClassVar[TriggerEventStatusEnum.TriggerEventStatus]
        no_workflow_steps_defined: _ClassVar[TriggerEventStatusEnum.TriggerEventStatus]
        processed: _ClassVar[TriggerEventStatusEnum.TriggerEventStatus]
        no_tenant_found: _ClassVar[TriggerEventStatusEnum.TriggerEventStatus]
        invalid_recipients: _ClassVar[TriggerEventStatusEnum.TriggerEventStatus]
    TRIGGER_EVENT_STATUS_UNSPECIFIED: TriggerEventStatusEnum.TriggerEventStatus
    error: TriggerEventStatusEnum.TriggerEventStatus
    trigger_not_active: TriggerEventStatusEnum.TriggerEventStatus
    no_workflow_active_steps_defined: TriggerEventStatusEnum.TriggerEventStatus
    no_workflow_steps_defined: TriggerEventStatusEnum.TriggerEventStatus
    processed: TriggerEventStatusEnum.TriggerEventStatus
    no_tenant_found: TriggerEventStatusEnum.TriggerEventStatus
    invalid_recipients: TriggerEventStatusEnum.TriggerEventStatus
    def __init__(self) -> None: ...

class TriggerEventResponse(_message.Message):
    __slots__ = ("acknowledged", "status", "error", "transaction_id")
    ACKNOWLEDGED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    acknowledged: bool
    status: TriggerEventStatusEnum.TriggerEventStatus
    error: _containers.RepeatedScalarFieldContainer[str]
    transaction_id: str
    def __init__(self, acknowledged: _Optional[bool] = ..., status: _Optional[_Union[TriggerEventStatusEnum.TriggerEventStatus, str]] = ..., error: _Optional[_Iterable[str]] = ..., transaction_id: _Optional[str] = ...) -> None: ...

class TriggerEventBulkRequest(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[TriggerEventRequest]
    def __init__(self, events: _Optional[_Iterable[_Union[TriggerEventRequest, _Mapping]]] = ...) -> None: ...

class TriggerEventBulkResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[TriggerEventResponse]
    def __init__(self, results: _Optional[_Iterable[_Union[TriggerEventResponse, _Mapping]]] = ...) -> None: ...

class StreamTriggerEventsRequest(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: TriggerEventRequest
    def __init__(self, event: _Optional[_Union[TriggerEventRequest, _Mapping]] = ...) -> None: ...

class StreamTriggerEventsResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: TriggerEventResponse
    def __init__(self, result: _Optional[_Union[TriggerEventResponse, _Mapping]] = ...) -> None: ...

class CancelTriggeredEventRequest(_message.Message):
    __slots__ = ("transaction_id",)
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    transaction_id: str
    def __init__(self, transaction_id: _Optional[str] = ...) -> None: ...

class CancelTriggeredEventResponse(_message.Message):
    __slots__ = ("canceled", "canceled_job_count")
    CANCELED_FIELD_NUMBER: _ClassVar[int]
    CANCELED_JOB_COUNT_FIELD_NUMBER: _ClassVar[int]
    canceled: bool
    canceled_job_count: int
    def __init__(self, canceled: _Optional[bool] = ..., canceled_job_count: _Optional[int] = ...) -> None: ...
