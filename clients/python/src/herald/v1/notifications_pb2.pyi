from google.protobuf import struct_pb2 as _struct_pb2
from herald.v1 import common_pb2 as _common_pb2
from herald.v1 import workflows_pb2 as _workflows_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NotificationEvent(_message.Message):
    __slots__ = ("id", "environment_id", "organization_id", "subscriber_id", "transaction_id", "template_id", "digested_notification_id", "created_at", "updated_at", "channels", "subscriber", "template", "jobs", "payload", "tags", "controls", "to", "topics", "severity", "critical")
    ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_ID_FIELD_NUMBER: _ClassVar[int]
    DIGESTED_NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    JOBS_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    CONTROLS_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    TOPICS_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    CRITICAL_FIELD_NUMBER: _ClassVar[int]
    id: str
    environment_id: str
    organization_id: str
    subscriber_id: str
    transaction_id: str
    template_id: str
    digested_notification_id: str
    created_at: str
    updated_at: str
    channels: _containers.RepeatedScalarFieldContainer[_common_pb2.StepTypeEnum.StepType]
    subscriber: NotificationEventSubscriber
    template: NotificationEventTemplate
    jobs: _containers.RepeatedCompositeFieldContainer[Job]
    payload: _struct_pb2.Struct
    tags: _containers.RepeatedScalarFieldContainer[str]
    controls: _struct_pb2.Struct
    to: _struct_pb2.Struct
    topics: _containers.RepeatedCompositeFieldContainer[NotificationEventTopic]
    severity: _common_pb2.SeverityEnum.Severity
    critical: bool
    def __init__(self, id: _Optional[str] = ..., environment_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., subscriber_id: _Optional[str] = ..., transaction_id: _Optional[str] = ..., template_id: _Optional[str] = ..., digested_notification_id: _Optional[str] = ..., created_at: _Optional[str] = ..., updated_at: _Optional[str] = ..., channels: _Optional[_Iterable[_Union[_common_pb2.StepTypeEnum.StepType, str]]] = ..., subscriber: _Optional[_Union[NotificationEventSubscriber, _Mapping]] = ..., template: _Optional[_Union[NotificationEventTemplate, _Mapping]] = ..., jobs: _Optional[_Iterable[_Union[Job, _Mapping]]] = ..., payload: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., tags: _Optional[_Iterable[str]] = ..., controls: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., to: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., topics: _Optional[_Iterable[_Union[NotificationEventTopic, _Mapping]]] = ..., severity: _Optional[_Union[_common_pb2.SeverityEnum.Severity, str]] = ..., critical: _Optional[bool] = ...) -> None: ...

class NotificationEventSubscriber(_message.Message):
    __slots__ = ("subscriber_id", "id", "first_name", "last_name", "email", "phone")
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_NAME_FIELD_NUMBER: _ClassVar[int]
    LAST_NAME_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    id: str
    first_name: str
    last_name: str
    email: str
    phone: str
    def __init__(self, subscriber_id: _Optional[str] = ..., id: _Optional[str] = ..., first_name: _Optional[str] = ..., last_name: _Optional[str] = ..., email: _Optional[str] = ..., phone: _Optional[str] = ...) -> None: ...

class NotificationEventTemplate(_message.Message):
    __slots__ = ("id", "name", "origin", "triggers")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    TRIGGERS_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    origin: str
    triggers: _containers.RepeatedCompositeFieldContainer[_workflows_pb2.NotificationTrigger]
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., origin: _Optional[str] = ..., triggers: _Optional[_Iterable[_Union[_workflows_pb2.NotificationTrigger, _Mapping]]] = ...) -> None: ...

class NotificationEventTopic(_message.Message):
    __slots__ = ("topic_id", "topic_key")
    TOPIC_ID_FIELD_NUMBER: _ClassVar[int]
    TOPIC_KEY_FIELD_NUMBER: _ClassVar[int]
    topic_id: str
    topic_key: str
    def __init__(self, topic_id: _Optional[str] = ..., topic_key: _Optional[str] = ...) -> None: ...

class Job(_message.Message):
    __slots__ = ("id", "type", "digest", "execution_details", "step", "overrides", "payload", "provider_id", "status", "updated_at", "schedule_extensions_count")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_DETAILS_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_EXTENSIONS_COUNT_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: _common_pb2.StepTypeEnum.StepType
    digest: DigestMetadata
    execution_details: _containers.RepeatedCompositeFieldContainer[ExecutionDetail]
    step: JobStep
    overrides: _struct_pb2.Struct
    payload: _struct_pb2.Struct
    provider_id: str
    status: str
    updated_at: str
    schedule_extensions_count: int
    def __init__(self, id: _Optional[str] = ..., type: _Optional[_Union[_common_pb2.StepTypeEnum.StepType, str]] = ..., digest: _Optional[_Union[DigestMetadata, _Mapping]] = ..., execution_details: _Optional[_Iterable[_Union[ExecutionDetail, _Mapping]]] = ..., step: _Optional[_Union[JobStep, _Mapping]] = ..., overrides: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., payload: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., provider_id: _Optional[str] = ..., status: _Optional[str] = ..., updated_at: _Optional[str] = ..., schedule_extensions_count: _Optional[int] = ...) -> None: ...

class JobStep(_message.Message):
    __slots__ = ("id", "active", "reply_callback", "control_variables", "metadata", "issues", "filters", "template", "variants", "template_id", "name", "parent_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    REPLY_CALLBACK_FIELD_NUMBER: _ClassVar[int]
    CONTROL_VARIABLES_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    ISSUES_FIELD_NUMBER: _ClassVar[int]
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    active: bool
    reply_callback: _workflows_pb2.ReplyCallback
    control_variables: _struct_pb2.Struct
    metadata: _struct_pb2.Struct
    issues: _struct_pb2.Struct
    filters: _containers.RepeatedCompositeFieldContainer[_common_pb2.StepFilter]
    template: _struct_pb2.Struct
    variants: _containers.RepeatedCompositeFieldContainer[JobStep]
    template_id: str
    name: str
    parent_id: str
    def __init__(self, id: _Optional[str] = ..., active: _Optional[bool] = ..., reply_callback: _Optional[_Union[_workflows_pb2.ReplyCallback, _Mapping]] = ..., control_variables: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., issues: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., filters: _Optional[_Iterable[_Union[_common_pb2.StepFilter, _Mapping]]] = ..., template: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., variants: _Optional[_Iterable[_Union[JobStep, _Mapping]]] = ..., template_id: _Optional[str] = ..., name: _Optional[str] = ..., parent_id: _Optional[str] = ...) -> None: ...

class DigestMetadata(_message.Message):
    __slots__ = ("type", "digest_key", "amount", "unit", "events", "backoff", "backoff_amount", "backoff_unit", "update_mode", "timed")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DIGEST_KEY_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    BACKOFF_FIELD_NUMBER: _ClassVar[int]
    BACKOFF_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    BACKOFF_UNIT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MODE_FIELD_NUMBER: _ClassVar[int]
    TIMED_FIELD_NUMBER: _ClassVar[int]
    type: _common_pb2.DigestTypeEnum.DigestType
    digest_key: str
    amount: int
    unit: _common_pb2.TimeUnitEnum.TimeUnit
    events: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    backoff: bool
    backoff_amount: int
    backoff_unit: _common_pb2.TimeUnitEnum.TimeUnit
    update_mode: bool
    timed: DigestTimedConfig
    def __init__(self, type: _Optional[_Union[_common_pb2.DigestTypeEnum.DigestType, str]] = ..., digest_key: _Optional[str] = ..., amount: _Optional[int] = ..., unit: _Optional[_Union[_common_pb2.TimeUnitEnum.TimeUnit, str]] = ..., events: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ..., backoff: _Optional[bool] = ..., backoff_amount: _Optional[int] = ..., backoff_unit: _Optional[_Union[_common_pb2.TimeUnitEnum.TimeUnit, str]] = ..., update_mode: _Optional[bool] = ..., timed: _Optional[_Union[DigestTimedConfig, _Mapping]] = ...) -> None: ...

class DigestTimedConfig(_message.Message):
    __slots__ = ("at_time", "week_days", "month_days", "ordinal", "ordinal_value", "monthly_type", "cron_expression")
    AT_TIME_FIELD_NUMBER: _ClassVar[int]
    WEEK_DAYS_FIELD_NUMBER: _ClassVar[int]
    MONTH_DAYS_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_VALUE_FIELD_NUMBER: _ClassVar[int]
    MONTHLY_TYPE_FIELD_NUMBER: _ClassVar[int]
    CRON_EXPRESSION_FIELD_NUMBER: _ClassVar[int]
    at_time: str
    week_days: _containers.RepeatedScalarFieldContainer[_common_pb2.WeekDayEnum.WeekDay]
    month_days: _containers.RepeatedScalarFieldContainer[int]
    ordinal: str
    ordinal_value: _common_pb2.OrdinalValueEnum.OrdinalValue
    monthly_type: _common_pb2.MonthlyTypeEnum.MonthlyType
    cron_expression: str
    def __init__(self, at_time: _Optional[str] = ..., week_days: _Optional[_Iterable[_Union[_common_pb2.WeekDayEnum.WeekDay, str]]] = ..., month_days: _Optional[_Iterable[int]] = ..., ordinal: _Optional[str] = ..., ordinal_value: _Optional[_Union[_common_pb2.OrdinalValueEnum.OrdinalValue, str]] = ..., monthly_type: _Optional[_Union[_common_pb2.MonthlyTypeEnum.MonthlyType, str]] = ..., cron_expression: _Optional[str] = ...) -> None: ...

class ExecutionDetailStatusEnum(_message.Message):
    __slots__ = ()
    class ExecutionDetailStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        EXECUTION_DETAIL_STATUS_UNSPECIFIED: _ClassVar[ExecutionDetailStatusEnum.ExecutionDetailStatus]
        Success: _ClassVar[ExecutionDetailStatusEnum.ExecutionDetailStatus]
        Warning: _ClassVar[ExecutionDetailStatusEnum.ExecutionDetailStatus]
        Failed: _ClassVar[ExecutionDetailStatusEnum.ExecutionDetailStatus]
        Pending: _ClassVar[ExecutionDetailStatusEnum.ExecutionDetailStatus]
        Queued: _ClassVar[ExecutionDetailStatusEnum.ExecutionDetailStatus]
        ReadConfirmation: _ClassVar[ExecutionDetailStatusEnum.ExecutionDetailStatus]
    EXECUTION_DETAIL_STATUS_UNSPECIFIED: ExecutionDetailStatusEnum.ExecutionDetailStatus
    Success: ExecutionDetailStatusEnum.ExecutionDetailStatus
    Warning: ExecutionDetailStatusEnum.ExecutionDetailStatus
    Failed: ExecutionDetailStatusEnum.ExecutionDetailStatus
    Pending: ExecutionDetailStatusEnum.ExecutionDetailStatus
    Queued: ExecutionDetailStatusEnum.ExecutionDetailStatus
    ReadConfirmation: ExecutionDetailStatusEnum.ExecutionDetailStatus
    def __init__(self) -> None: ...

class ExecutionDetailSourceEnum(_message.Message):
    __slots__ = ()
    class ExecutionDetailSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        EXECUTION_DETAIL_SOURCE_UNSPECIFIED: _ClassVar[ExecutionDetailSourceEnum.ExecutionDetailSource]
        Credentials: _ClassVar[ExecutionDetailSourceEnum.ExecutionDetailSource]
        Internal: _ClassVar[ExecutionDetailSourceEnum.ExecutionDetailSource]
        Payload: _ClassVar[ExecutionDetailSourceEnum.ExecutionDetailSource]
        Webhook: _ClassVar[ExecutionDetailSourceEnum.ExecutionDetailSource]
    EXECUTION_DETAIL_SOURCE_UNSPECIFIED: ExecutionDetailSourceEnum.ExecutionDetailSource
    Credentials: ExecutionDetailSourceEnum.ExecutionDetailSource
    Internal: ExecutionDetailSourceEnum.ExecutionDetailSource
    Payload: ExecutionDetailSourceEnum.ExecutionDetailSource
    Webhook: ExecutionDetailSourceEnum.ExecutionDetailSource
    def __init__(self) -> None: ...

class ExecutionDetail(_message.Message):
    __slots__ = ("id", "created_at", "status", "detail", "is_retry", "is_test", "provider_id", "raw", "source")
    ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    IS_RETRY_FIELD_NUMBER: _ClassVar[int]
    IS_TEST_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    RAW_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    id: str
    created_at: str
    status: ExecutionDetailStatusEnum.ExecutionDetailStatus
    detail: str
    is_retry: bool
    is_test: bool
    provider_id: str
    raw: str
    source: ExecutionDetailSourceEnum.ExecutionDetailSource
    def __init__(self, id: _Optional[str] = ..., created_at: _Optional[str] = ..., status: _Optional[_Union[ExecutionDetailStatusEnum.ExecutionDetailStatus, str]] = ..., detail: _Optional[str] = ..., is_retry: _Optional[bool] = ..., is_test: _Optional[bool] = ..., provider_id: _Optional[str] = ..., raw: _Optional[str] = ..., source: _Optional[_Union[ExecutionDetailSourceEnum.ExecutionDetailSource, str]] = ...) -> None: ...

class ListNotificationsRequest(_message.Message):
    __slots__ = ("channels", "templates", "emails", "search", "subscriber_ids", "severity", "page", "limit", "transaction_id", "topic_key", "after", "before")
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    TEMPLATES_FIELD_NUMBER: _ClassVar[int]
    EMAILS_FIELD_NUMBER: _ClassVar[int]
    SEARCH_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_IDS_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    TOPIC_KEY_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    channels: _containers.RepeatedScalarFieldContainer[_common_pb2.StepTypeEnum.StepType]
    templates: _containers.RepeatedScalarFieldContainer[str]
    emails: _containers.RepeatedScalarFieldContainer[str]
    search: str
    subscriber_ids: _containers.RepeatedScalarFieldContainer[str]
    severity: _containers.RepeatedScalarFieldContainer[_common_pb2.SeverityEnum.Severity]
    page: int
    limit: int
    transaction_id: str
    topic_key: str
    after: str
    before: str
    def __init__(self, channels: _Optional[_Iterable[_Union[_common_pb2.StepTypeEnum.StepType, str]]] = ..., templates: _Optional[_Iterable[str]] = ..., emails: _Optional[_Iterable[str]] = ..., search: _Optional[str] = ..., subscriber_ids: _Optional[_Iterable[str]] = ..., severity: _Optional[_Iterable[_Union[_common_pb2.SeverityEnum.Severity, str]]] = ..., page: _Optional[int] = ..., limit: _Optional[int] = ..., transaction_id: _Optional[str] = ..., topic_key: _Optional[str] = ..., after: _Optional[str] = ..., before: _Optional[str] = ...) -> None: ...

class ListNotificationsResponse(_message.Message):
    __slots__ = ("has_more", "data", "page_size", "page")
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    has_more: bool
    data: _containers.RepeatedCompositeFieldContainer[NotificationEvent]
    page_size: int
    page: int
    def __init__(self, has_more: _Optional[bool] = ..., data: _Optional[_Iterable[_Union[NotificationEvent, _Mapping]]] = ..., page_size: _Optional[int] = ..., page: _Optional[int] = ...) -> None: ...

class GetNotificationRequest(_message.Message):
    __slots__ = ("notification_id",)
    NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    notification_id: str
    def __init__(self, notification_id: _Optional[str] = ...) -> None: ...

class GetNotificationResponse(_message.Message):
    __slots__ = ("notification",)
    NOTIFICATION_FIELD_NUMBER: _ClassVar[int]
    notification: NotificationEvent
    def __init__(self, notification: _Optional[_Union[NotificationEvent, _Mapping]] = ...) -> None: ...
