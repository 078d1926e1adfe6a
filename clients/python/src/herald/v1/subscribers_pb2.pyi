from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from herald.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Subscriber(_message.Message):
    __slots__ = ("id", "subscriber_id", "first_name", "last_name", "email", "phone", "avatar", "locale", "channels", "topics", "is_online", "last_online_at", "version", "data", "timezone", "organization_id", "environment_id", "deleted", "created_at", "updated_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_NAME_FIELD_NUMBER: _ClassVar[int]
    LAST_NAME_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    LOCALE_FIELD_NUMBER: _ClassVar[int]
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    TOPICS_FIELD_NUMBER: _ClassVar[int]
    IS_ONLINE_FIELD_NUMBER: _ClassVar[int]
    LAST_ONLINE_AT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    TIMEZONE_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_ID_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    subscriber_id: str
    first_name: str
    last_name: str
    email: str
    phone: str
    avatar: str
    locale: str
    channels: _containers.RepeatedCompositeFieldContainer[ChannelSettings]
    topics: _containers.RepeatedScalarFieldContainer[str]
    is_online: bool
    last_online_at: str
    version: int
    data: _struct_pb2.Struct
    timezone: str
    organization_id: str
    environment_id: str
    deleted: bool
    created_at: str
    updated_at: str
    def __init__(self, id: _Optional[str] = ..., subscriber_id: _Optional[str] = ..., first_name: _Optional[str] = ..., last_name: _Optional[str] = ..., email: _Optional[str] = ..., phone: _Optional[str] = ..., avatar: _Optional[str] = ..., locale: _Optional[str] = ..., channels: _Optional[_Iterable[_Union[ChannelSettings, _Mapping]]] = ..., topics: _Optional[_Iterable[str]] = ..., is_online: _Optional[bool] = ..., last_online_at: _Optional[str] = ..., version: _Optional[int] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., timezone: _Optional[str] = ..., organization_id: _Optional[str] = ..., environment_id: _Optional[str] = ..., deleted: _Optional[bool] = ..., created_at: _Optional[str] = ..., updated_at: _Optional[str] = ...) -> None: ...

class ChannelSettings(_message.Message):
    __slots__ = ("provider_id", "integration_identifier", "credentials", "integration_id")
    PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    INTEGRATION_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    INTEGRATION_ID_FIELD_NUMBER: _ClassVar[int]
    provider_id: str
    integration_identifier: str
    credentials: ChannelCredentials
    integration_id: str
    def __init__(self, provider_id: _Optional[str] = ..., integration_identifier: _Optional[str] = ..., credentials: _Optional[_Union[ChannelCredentials, _Mapping]] = ..., integration_id: _Optional[str] = ...) -> None: ...

class ChannelCredentials(_message.Message):
    __slots__ = ("webhook_url", "channel", "device_tokens", "alert_uid", "title", "image_url", "state", "external_url")
    WEBHOOK_URL_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    ALERT_UID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    IMAGE_URL_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_URL_FIELD_NUMBER: _ClassVar[int]
    webhook_url: str
    channel: str
    device_tokens: _containers.RepeatedScalarFieldContainer[str]
    alert_uid: str
    title: str
    image_url: str
    state: str
    external_url: str
    def __init__(self, webhook_url: _Optional[str] = ..., channel: _Optional[str] = ..., device_tokens: _Optional[_Iterable[str]] = ..., alert_uid: _Optional[str] = ..., title: _Optional[str] = ..., image_url: _Optional[str] = ..., state: _Optional[str] = ..., external_url: _Optional[str] = ...) -> None: ...

class SubscriberChannel(_message.Message):
    __slots__ = ("provider_id", "integration_identifier", "credentials")
    PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    INTEGRATION_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    provider_id: str
    integration_identifier: str
    credentials: ChannelCredentials
    def __init__(self, provider_id: _Optional[str] = ..., integration_identifier: _Optional[str] = ..., credentials: _Optional[_Union[ChannelCredentials, _Mapping]] = ...) -> None: ...

class SubscriberPreferences(_message.Message):
    __slots__ = ("global_preference", "workflows")
    GLOBAL_PREFERENCE_FIELD_NUMBER: _ClassVar[int]
    WORKFLOWS_FIELD_NUMBER: _ClassVar[int]
    global_preference: SubscriberGlobalPreference
    workflows: _containers.RepeatedCompositeFieldContainer[SubscriberWorkflowPreference]
    def __init__(self, global_preference: _Optional[_Union[SubscriberGlobalPreference, _Mapping]] = ..., workflows: _Optional[_Iterable[_Union[SubscriberWorkflowPreference, _Mapping]]] = ...) -> None: ...

class SubscriberGlobalPreference(_message.Message):
    __slots__ = ("enabled", "channels", "schedule")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    channels: _common_pb2.ChannelFlags
    schedule: Schedule
    def __init__(self, enabled: _Optional[bool] = ..., channels: _Optional[_Union[_common_pb2.ChannelFlags, _Mapping]] = ..., schedule: _Optional[_Union[Schedule, _Mapping]] = ...) -> None: ...

class SubscriberWorkflowPreference(_message.Message):
    __slots__ = ("enabled", "channels", "overrides", "workflow")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    channels: _common_pb2.ChannelFlags
    overrides: _containers.RepeatedCompositeFieldContainer[PreferenceOverride]
    workflow: PreferenceWorkflowInfo
    def __init__(self, enabled: _Optional[bool] = ..., channels: _Optional[_Union[_common_pb2.ChannelFlags, _Mapping]] = ..., overrides: _Optional[_Iterable[_Union[PreferenceOverride, _Mapping]]] = ..., workflow: _Optional[_Union[PreferenceWorkflowInfo, _Mapping]] = ...) -> None: ...

class PreferenceOverrideSourceEnum(_message.Message):
    __slots__ = ()
    class PreferenceOverrideSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PREFERENCE_OVERRIDE_SOURCE_UNSPECIFIED: _ClassVar[PreferenceOverrideSourceEnum.PreferenceOverrideSource]
        subscriber: _ClassVar[PreferenceOverrideSourceEnum.PreferenceOverrideSource]
        template: _ClassVar[PreferenceOverrideSourceEnum.PreferenceOverrideSource]
        workflowOverride: _ClassVar[PreferenceOverrideSourceEnum.PreferenceOverrideSource]
    PREFERENCE_OVERRIDE_SOURCE_UNSPECIFIED: PreferenceOverrideSourceEnum.PreferenceOverrideSource
    subscriber: PreferenceOverrideSourceEnum.PreferenceOverrideSource
    template: PreferenceOverrideSourceEnum.PreferenceOverrideSource
    workflowOverride: PreferenceOverrideSourceEnum.PreferenceOverrideSource
    def __init__(self) -> None: ...

class PreferenceOverride(_message.Message):
    __slots__ = ("channel", "source")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    channel: _common_pb2.ChannelTypeEnum.ChannelType
    source: PreferenceOverrideSourceEnum.PreferenceOverrideSource
    def __init__(self, channel: _Optional[_Union[_common_pb2.ChannelTypeEnum.ChannelType, str]] = ..., source: _Optional[_Union[PreferenceOverrideSourceEnum.PreferenceOverrideSource, str]] = ...) -> None: ...

class PreferenceWorkflowInfo(_message.Message):
    __slots__ = ("slug", "identifier", "name", "updated_at")
    SLUG_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    slug: str
    identifier: str
    name: str
    updated_at: str
    def __init__(self, slug: _Optional[str] = ..., identifier: _Optional[str] = ..., name: _Optional[str] = ..., updated_at: _Optional[str] = ...) -> None: ...

class Schedule(_message.Message):
    __slots__ = ("is_enabled", "weekly_schedule")
    IS_ENABLED_FIELD_NUMBER: _ClassVar[int]
    WEEKLY_SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    is_enabled: bool
    weekly_schedule: WeeklySchedule
    def __init__(self, is_enabled: _Optional[bool] = ..., weekly_schedule: _Optional[_Union[WeeklySchedule, _Mapping]] = ...) -> None: ...

class WeeklySchedule(_message.Message):
    __slots__ = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    MONDAY_FIELD_NUMBER: _ClassVar[int]
    TUESDAY_FIELD_NUMBER: _ClassVar[int]
    WEDNESDAY_FIELD_NUMBER: _ClassVar[int]
    THURSDAY_FIELD_NUMBER: _ClassVar[int]
    FRIDAY_FIELD_NUMBER: _ClassVar[int]
    SATURDAY_FIELD_NUMBER: _ClassVar[int]
    SUNDAY_FIELD_NUMBER: _ClassVar[int]
    monday: DaySchedule
    tuesday: DaySchedule
    wednesday: DaySchedule
    thursday: DaySchedule
    friday: DaySchedule
    saturday: DaySchedule
    sunday: DaySchedule
    def __init__(self, monday: _Optional[_Union[DaySchedule, _Mapping]] = ..., tuesday: _Optional[_Union[DaySchedule, _Mapping]] = ..., wednesday: _Optional[_Union[DaySchedule, _Mapping]] = ..., thursday: _Optional[_Union[DaySchedule, _Mapping]] = ..., friday: _Optional[_Union[DaySchedule, _Mapping]] = ..., saturday: _Optional[_Union[DaySchedule, _Mapping]] = ..., sunday: _Optional[_Union[DaySchedule, _Mapping]] = ...) -> None: ...

class DaySchedule(_message.Message):
    __slots__ = ("is_enabled", "hours")
    IS_ENABLED_FIELD_NUMBER: _ClassVar[int]
    HOURS_FIELD_NUMBER: _ClassVar[int]
    is_enabled: bool
    hours: _containers.RepeatedCompositeFieldContainer[TimeRange]
    def __init__(self, is_enabled: _Optional[bool] = ..., hours: _Optional[_Iterable[_Union[TimeRange, _Mapping]]] = ...) -> None: ...

class TimeRange(_message.Message):
    __slots__ = ("start", "end")
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    start: str
    end: str
    def __init__(self, start: _Optional[str] = ..., end: _Optional[str] = ...) -> None: ...

class CreateSubscriberRequest(_message.Message):
    __slots__ = ("subscriber_id", "first_name", "last_name", "email", "phone", "avatar", "timezone", "locale", "data")
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_NAME_FIELD_NUMBER: _ClassVar[int]
    LAST_NAME_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    TIMEZONE_FIELD_NUMBER: _ClassVar[int]
    LOCALE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    first_name: str
    last_name: str
    email: str
    phone: str
    avatar: str
    timezone: str
    locale: str
    data: _struct_pb2.Struct
    def __init__(self, subscriber_id: _Optional[str] = ..., first_name: _Optional[str] = ..., last_name: _Optional[str] = ..., email: _Optional[str] = ..., phone: _Optional[str] = ..., avatar: _Optional[str] = ..., timezone: _Optional[str] = ..., locale: _Optional[str] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class CreateSubscriberResponse(_message.Message):
    __slots__ = ("subscriber",)
    SUBSCRIBER_FIELD_NUMBER: _ClassVar[int]
    subscriber: Subscriber
    def __init__(self, subscriber: _Optional[_Union[Subscriber, _Mapping]] = ...) -> None: ...

class GetSubscriberRequest(_message.Message):
    __slots__ = ("subscriber_id",)
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    def __init__(self, subscriber_id: _Optional[str] = ...) -> None: ...

class GetSubscriberResponse(_message.Message):
    __slots__ = ("subscriber",)
    SUBSCRIBER_FIELD_NUMBER: _ClassVar[int]
    subscriber: Subscriber
    def __init__(self, subscriber: _Optional[_Union[Subscriber, _Mapping]] = ...) -> None: ...

class UpdateSubscriberRequest(_message.Message):
    __slots__ = ("subscriber_id", "first_name", "last_name", "email", "phone", "avatar", "timezone", "locale", "data", "update_mask")
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_NAME_FIELD_NUMBER: _ClassVar[int]
    LAST_NAME_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    TIMEZONE_FIELD_NUMBER: _ClassVar[int]
    LOCALE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    first_name: str
    last_name: str
    email: str
    phone: str
    avatar: str
    timezone: str
    locale: str
    data: _struct_pb2.Struct
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, subscriber_id: _Optional[str] = ..., first_name: _Optional[str] = ..., last_name: _Optional[str] = ..., email: _Optional[str] = ..., phone: _Optional[str] = ..., avatar: _Optional[str] = ..., timezone: _Optional[str] = ..., locale: _Optional[str] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class UpdateSubscriberResponse(_message.Message):
    __slots__ = ("subscriber",)
    SUBSCRIBER_FIELD_NUMBER: _ClassVar[int]
    subscriber: Subscriber
    def __init__(self, subscriber: _Optional[_Union[Subscriber, _Mapping]] = ...) -> None: ...

class DeleteSubscriberRequest(_message.Message):
    __slots__ = ("subscriber_id",)
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    def __init__(self, subscriber_id: _Optional[str] = ...) -> None: ...

class DeleteSubscriberResponse(_message.Message):
    __slots__ = ("acknowledged", "status")
    ACKNOWLEDGED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    acknowledged: bool
    status: str
    def __init__(self, acknowledged: _Optional[bool] = ..., status: _Optional[str] = ...) -> None: ...

class SearchSubscribersRequest(_message.Message):
    __slots__ = ("after", "before", "limit", "order_direction", "order_by", "include_cursor", "email", "name", "phone", "subscriber_id")
    AFTER_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ORDER_DIRECTION_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_CURSOR_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    after: str
    before: str
    limit: int
    order_direction: _common_pb2.OrderDirectionEnum.OrderDirection
    order_by: str
    include_cursor: bool
    email: str
    name: str
    phone: str
    subscriber_id: str
    def __init__(self, after: _Optional[str] = ..., before: _Optional[str] = ..., limit: _Optional[int] = ..., order_direction: _Optional[_Union[_common_pb2.OrderDirectionEnum.OrderDirection, str]] = ..., order_by: _Optional[str] = ..., include_cursor: _Optional[bool] = ..., email: _Optional[str] = ..., name: _Optional[str] = ..., phone: _Optional[str] = ..., subscriber_id: _Optional[str] = ...) -> None: ...

class SearchSubscribersResponse(_message.Message):
    __slots__ = ("data", "next", "previous", "total_count", "total_count_capped")
    DATA_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_CAPPED_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[Subscriber]
    next: _struct_pb2.Value
    previous: _struct_pb2.Value
    total_count: int
    total_count_capped: bool
    def __init__(self, data: _Optional[_Iterable[_Union[Subscriber, _Mapping]]] = ..., next: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., previous: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., total_count: _Optional[int] = ..., total_count_capped: _Optional[bool] = ...) -> None: ...

class UpsertSubscriberCredentialsRequest(_message.Message):
    __slots__ = ("subscriber_id", "provider_id", "integration_identifier", "credentials", "update_mask")
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    INTEGRATION_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    provider_id: str
    integration_identifier: str
    credentials: ChannelCredentials
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, subscriber_id: _Optional[str] = ..., provider_id: _Optional[str] = ..., integration_identifier: _Optional[str] = ..., credentials: _Optional[_Union[ChannelCredentials, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class UpsertSubscriberCredentialsResponse(_message.Message):
    __slots__ = ("subscriber",)
    SUBSCRIBER_FIELD_NUMBER: _ClassVar[int]
    subscriber: Subscriber
    def __init__(self, subscriber: _Optional[_Union[Subscriber, _Mapping]] = ...) -> None: ...

class GetSubscriberPreferencesRequest(_message.Message):
    __slots__ = ("subscriber_id",)
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    def __init__(self, subscriber_id: _Optional[str] = ...) -> None: ...

class GetSubscriberPreferencesResponse(_message.Message):
    __slots__ = ("preferences",)
    PREFERENCES_FIELD_NUMBER: _ClassVar[int]
    preferences: SubscriberPreferences
    def __init__(self, preferences: _Optional[_Union[SubscriberPreferences, _Mapping]] = ...) -> None: ...

class UpdateSubscriberPreferencesRequest(_message.Message):
    __slots__ = ("subscriber_id", "channels", "workflow_id", "schedule")
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_ID_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    channels: _common_pb2.ChannelFlags
    workflow_id: str
    schedule: Schedule
    def __init__(self, subscriber_id: _Optional[str] = ..., channels: _Optional[_Union[_common_pb2.ChannelFlags, _Mapping]] = ..., workflow_id: _Optional[str] = ..., schedule: _Optional[_Union[Schedule, _Mapping]] = ...) -> None: ...

class UpdateSubscriberPreferencesResponse(_message.Message):
    __slots__ = ("preferences",)
    PREFERENCES_FIELD_NUMBER: _ClassVar[int]
    preferences: SubscriberPreferences
    def __init__(self, preferences: _Optional[_Union[SubscriberPreferences, _Mapping]] = ...) -> None: ...
