from herald.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InboxSessionSubscriber(_message.Message):
    __slots__ = ("subscriber_id", "first_name", "last_name", "email", "phone", "avatar", "locale", "timezone")
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_NAME_FIELD_NUMBER: _ClassVar[int]
    LAST_NAME_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    LOCALE_FIELD_NUMBER: _ClassVar[int]
    TIMEZONE_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    first_name: str
    last_name: str
    email: str
    phone: str
    avatar: str
    locale: str
    timezone: str
    def __init__(self, subscriber_id: _Optional[str] = ..., first_name: _Optional[str] = ..., last_name: _Optional[str] = ..., email: _Optional[str] = ..., phone: _Optional[str] = ..., avatar: _Optional[str] = ..., locale: _Optional[str] = ..., timezone: _Optional[str] = ...) -> None: ...

class CreateInboxSessionRequest(_message.Message):
    __slots__ = ("application_identifier", "subscriber_id", "subscriber", "subscriber_hash")
    APPLICATION_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_HASH_FIELD_NUMBER: _ClassVar[int]
    application_identifier: str
    subscriber_id: str
    subscriber: InboxSessionSubscriber
    subscriber_hash: str
    def __init__(self, application_identifier: _Optional[str] = ..., subscriber_id: _Optional[str] = ..., subscriber: _Optional[_Union[InboxSessionSubscriber, _Mapping]] = ..., subscriber_hash: _Optional[str] = ...) -> None: ...

class InboxUnreadCount(_message.Message):
    __slots__ = ("total",)
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    total: int
    def __init__(self, total: _Optional[int] = ...) -> None: ...

class InboxSession(_message.Message):
    __slots__ = ("token", "total_unread_count", "unread_count", "expires_at", "expires_in", "application_identifier", "remove_novu_branding")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_UNREAD_COUNT_FIELD_NUMBER: _ClassVar[int]
    UNREAD_COUNT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_FIELD_NUMBER: _ClassVar[int]
    APPLICATION_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    REMOVE_NOVU_BRANDING_FIELD_NUMBER: _ClassVar[int]
    token: str
    total_unread_count: int
    unread_count: InboxUnreadCount
    expires_at: str
    expires_in: int
    application_identifier: str
    remove_novu_branding: bool
    def __init__(self, token: _Optional[str] = ..., total_unread_count: _Optional[int] = ..., unread_count: _Optional[_Union[InboxUnreadCount, _Mapping]] = ..., expires_at: _Optional[str] = ..., expires_in: _Optional[int] = ..., application_identifier: _Optional[str] = ..., remove_novu_branding: _Optional[bool] = ...) -> None: ...

class CreateInboxSessionResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: InboxSession
    def __init__(self, data: _Optional[_Union[InboxSession, _Mapping]] = ...) -> None: ...

class InboxFilter(_message.Message):
    __slots__ = ("tags", "read", "archived", "seen", "snoozed")
    TAGS_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    SEEN_FIELD_NUMBER: _ClassVar[int]
    SNOOZED_FIELD_NUMBER: _ClassVar[int]
    tags: _containers.RepeatedScalarFieldContainer[str]
    read: bool
    archived: bool
    seen: bool
    snoozed: bool
    def __init__(self, tags: _Optional[_Iterable[str]] = ..., read: _Optional[bool] = ..., archived: _Optional[bool] = ..., seen: _Optional[bool] = ..., snoozed: _Optional[bool] = ...) -> None: ...

class InboxAction(_message.Message):
    __slots__ = ("label", "is_completed", "redirect")
    LABEL_FIELD_NUMBER: _ClassVar[int]
    IS_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_FIELD_NUMBER: _ClassVar[int]
    label: str
    is_completed: bool
    redirect: InboxRedirect
    def __init__(self, label: _Optional[str] = ..., is_completed: _Optional[bool] = ..., redirect: _Optional[_Union[InboxRedirect, _Mapping]] = ...) -> None: ...

class InboxRedirect(_message.Message):
    __slots__ = ("url", "target")
    URL_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    url: str
    target: str
    def __init__(self, url: _Optional[str] = ..., target: _Optional[str] = ...) -> None: ...

class InboxRecipient(_message.Message):
    __slots__ = ("id", "subscriber_id", "first_name", "last_name", "avatar")
    ID_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_NAME_FIELD_NUMBER: _ClassVar[int]
    LAST_NAME_FIELD_NUMBER: _ClassVar[int]
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    id: str
    subscriber_id: str
    first_name: str
    last_name: str
    avatar: str
    def __init__(self, id: _Optional[str] = ..., subscriber_id: _Optional[str] = ..., first_name: _Optional[str] = ..., last_name: _Optional[str] = ..., avatar: _Optional[str] = ...) -> None: ...

class InboxWorkflow(_message.Message):
    __slots__ = ("id", "identifier", "name", "critical", "tags", "severity")
    ID_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CRITICAL_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    id: str
    identifier: str
    name: str
    critical: bool
    tags: _containers.RepeatedScalarFieldContainer[str]
    severity: str
    def __init__(self, id: _Optional[str] = ..., identifier: _Optional[str] = ..., name: _Optional[str] = ..., critical: _Optional[bool] = ..., tags: _Optional[_Iterable[str]] = ..., severity: _Optional[str] = ...) -> None: ...

class InboxNotification(_message.Message):
    __slots__ = ("id", "transaction_id", "subject", "body", "to", "is_read", "is_seen", "is_archived", "created_at", "read_at", "seen_at", "archived_at", "primary_action", "secondary_action", "channel_type", "tags", "redirect", "workflow", "severity", "is_snoozed", "snoozed_until")
    ID_FIELD_NUMBER: _ClassVar[int]
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    IS_READ_FIELD_NUMBER: _ClassVar[int]
    IS_SEEN_FIELD_NUMBER: _ClassVar[int]
    IS_ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    READ_AT_FIELD_NUMBER: _ClassVar[int]
    SEEN_AT_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_AT_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_ACTION_FIELD_NUMBER: _ClassVar[int]
    SECONDARY_ACTION_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_TYPE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    IS_SNOOZED_FIELD_NUMBER: _ClassVar[int]
    SNOOZED_UNTIL_FIELD_NUMBER: _ClassVar[int]
    id: str
    transaction_id: str
    subject: str
    body: str
    to: InboxRecipient
    is_read: bool
    is_seen: bool
    is_archived: bool
    created_at: str
    read_at: str
    seen_at: str
    archived_at: str
    primary_action: InboxAction
    secondary_action: InboxAction
    channel_type: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    redirect: InboxRedirect
    workflow: InboxWorkflow
    severity: str
    is_snoozed: bool
    snoozed_until: str
    def __init__(self, id: _Optional[str] = ..., transaction_id: _Optional[str] = ..., subject: _Optional[str] = ..., body: _Optional[str] = ..., to: _Optional[_Union[InboxRecipient, _Mapping]] = ..., is_read: _Optional[bool] = ..., is_seen: _Optional[bool] = ..., is_archived: _Optional[bool] = ..., created_at: _Optional[str] = ..., read_at: _Optional[str] = ..., seen_at: _Optional[str] = ..., archived_at: _Optional[str] = ..., primary_action: _Optional[_Union[InboxAction, _Mapping]] = ..., secondary_action: _Optional[_Union[InboxAction, _Mapping]] = ..., channel_type: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., redirect: _Optional[_Union[InboxRedirect, _Mapping]] = ..., workflow: _Optional[_Union[InboxWorkflow, _Mapping]] = ..., severity: _Optional[str] = ..., is_snoozed: _Optional[bool] = ..., snoozed_until: _Optional[str] = ...) -> None: ...

class ListInboxNotificationsRequest(_message.Message):
    __slots__ = ("filter", "limit", "after")
    FILTER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    filter: InboxFilter
    limit: int
    after: str
    def __init__(self, filter: _Optional[_Union[InboxFilter, _Mapping]] = ..., limit: _Optional[int] = ..., after: _Optional[str] = ...) -> None: ...

class ListInboxNotificationsResponse(_message.Message):
    __slots__ = ("data", "has_more", "filter", "next")
    DATA_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[InboxNotification]
    has_more: bool
    filter: InboxFilter
    next: str
    def __init__(self, data: _Optional[_Iterable[_Union[InboxNotification, _Mapping]]] = ..., has_more: _Optional[bool] = ..., filter: _Optional[_Union[InboxFilter, _Mapping]] = ..., next: _Optional[str] = ...) -> None: ...

class CountInboxNotificationsRequest(_message.Message):
    __slots__ = ("filters",)
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    filters: _containers.RepeatedCompositeFieldContainer[InboxFilter]
    def __init__(self, filters: _Optional[_Iterable[_Union[InboxFilter, _Mapping]]] = ...) -> None: ...

class InboxCount(_message.Message):
    __slots__ = ("count", "filter")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    count: int
    filter: InboxFilter
    def __init__(self, count: _Optional[int] = ..., filter: _Optional[_Union[InboxFilter, _Mapping]] = ...) -> None: ...

class CountInboxNotificationsResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[InboxCount]
    def __init__(self, data: _Optional[_Iterable[_Union[InboxCount, _Mapping]]] = ...) -> None: ...

class InboxMarkEnum(_message.Message):
    __slots__ = ()
    class InboxMark(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        INBOX_MARK_UNSPECIFIED: _ClassVar[InboxMarkEnum.InboxMark]
        read: _ClassVar[InboxMarkEnum.InboxMark]
        unread: _ClassVar[InboxMarkEnum.InboxMark]
        archive: _ClassVar[InboxMarkEnum.InboxMark]
        unarchive: _ClassVar[InboxMarkEnum.InboxMark]
        snooze: _ClassVar[InboxMarkEnum.InboxMark]
        unsnooze: _ClassVar[InboxMarkEnum.InboxMark]
    INBOX_MARK_UNSPECIFIED: InboxMarkEnum.InboxMark
    read: InboxMarkEnum.InboxMark
    unread: InboxMarkEnum.InboxMark
    archive: InboxMarkEnum.InboxMark
    unarchive: InboxMarkEnum.InboxMark
    snooze: InboxMarkEnum.InboxMark
    unsnooze: InboxMarkEnum.InboxMark
    def __init__(self) -> None: ...

class MarkInboxNotificationRequest(_message.Message):
    __slots__ = ("notification_id", "mark", "snooze_until")
    NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    MARK_FIELD_NUMBER: _ClassVar[int]
    SNOOZE_UNTIL_FIELD_NUMBER: _ClassVar[int]
    notification_id: str
    mark: InboxMarkEnum.InboxMark
    snooze_until: str
    def __init__(self, notification_id: _Optional[str] = ..., mark: _Optional[_Union[InboxMarkEnum.InboxMark, str]] = ..., snooze_until: _Optional[str] = ...) -> None: ...

class MarkInboxNotificationResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: InboxNotification
    def __init__(self, data: _Optional[_Union[InboxNotification, _Mapping]] = ...) -> None: ...

class ReadAllInboxNotificationsRequest(_message.Message):
    __slots__ = ("tags",)
    TAGS_FIELD_NUMBER: _ClassVar[int]
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tags: _Optional[_Iterable[str]] = ...) -> None: ...

class ReadAllInboxNotificationsResponse(_message.Message):
    __slots__ = ("updated",)
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    updated: int
    def __init__(self, updated: _Optional[int] = ...) -> None: ...

class InboxBulkChangeEnum(_message.Message):
    __slots__ = ()
    class InboxBulkChange(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        INBOX_BULK_CHANGE_UNSPECIFIED: _ClassVar[InboxBulkChangeEnum.InboxBulkChange]
        archive: _ClassVar[InboxBulkChangeEnum.InboxBulkChange]
        archive_read: _ClassVar[InboxBulkChangeEnum.InboxBulkChange]
        seen: _ClassVar[InboxBulkChangeEnum.InboxBulkChange]
        delete: _ClassVar[InboxBulkChangeEnum.InboxBulkChange]
    INBOX_BULK_CHANGE_UNSPECIFIED: InboxBulkChangeEnum.InboxBulkChange
    archive: InboxBulkChangeEnum.InboxBulkChange
    archive_read: InboxBulkChangeEnum.InboxBulkChange
    seen: InboxBulkChangeEnum.InboxBulkChange
    delete: InboxBulkChangeEnum.InboxBulkChange
    def __init__(self) -> None: ...

class UpdateAllInboxNotificationsRequest(_message.Message):
    __slots__ = ("change", "tags", "notification_ids")
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_IDS_FIELD_NUMBER: _ClassVar[int]
    change: InboxBulkChangeEnum.InboxBulkChange
    tags: _containers.RepeatedScalarFieldContainer[str]
    notification_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, change: _Optional[_Union[InboxBulkChangeEnum.InboxBulkChange, str]] = ..., tags: _Optional[_Iterable[str]] = ..., notification_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class UpdateAllInboxNotificationsResponse(_message.Message):
    __slots__ = ("updated",)
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    updated: int
    def __init__(self, updated: _Optional[int] = ...) -> None: ...

class InboxActionTypeEnum(_message.Message):
    __slots__ = ()
    class InboxActionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        INBOX_ACTION_TYPE_UNSPECIFIED: _ClassVar[InboxActionTypeEnum.InboxActionType]
        primary: _ClassVar[InboxActionTypeEnum.InboxActionType]
        secondary: _ClassVar[InboxActionTypeEnum.InboxActionType]
    INBOX_ACTION_TYPE_UNSPECIFIED: InboxActionTypeEnum.InboxActionType
    primary: InboxActionTypeEnum.InboxActionType
    secondary: InboxActionTypeEnum.InboxActionType
    def __init__(self) -> None: ...

class UpdateInboxNotificationActionRequest(_message.Message):
    __slots__ = ("notification_id", "action_type", "completed")
    NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_TYPE_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_FIELD_NUMBER: _ClassVar[int]
    notification_id: str
    action_type: InboxActionTypeEnum.InboxActionType
    completed: bool
    def __init__(self, notification_id: _Optional[str] = ..., action_type: _Optional[_Union[InboxActionTypeEnum.InboxActionType, str]] = ..., completed: _Optional[bool] = ...) -> None: ...

class UpdateInboxNotificationActionResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: InboxNotification
    def __init__(self, data: _Optional[_Union[InboxNotification, _Mapping]] = ...) -> None: ...

class DeleteInboxNotificationRequest(_message.Message):
    __slots__ = ("notification_id",)
    NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    notification_id: str
    def __init__(self, notification_id: _Optional[str] = ...) -> None: ...

class DeleteInboxNotificationResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class InboxPreferenceWorkflow(_message.Message):
    __slots__ = ("id", "identifier", "name", "critical", "tags")
    ID_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CRITICAL_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    id: str
    identifier: str
    name: str
    critical: bool
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., identifier: _Optional[str] = ..., name: _Optional[str] = ..., critical: _Optional[bool] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class InboxPreference(_message.Message):
    __slots__ = ("level", "enabled", "channels", "workflow")
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    level: str
    enabled: bool
    channels: _common_pb2.ChannelFlags
    workflow: InboxPreferenceWorkflow
    def __init__(self, level: _Optional[str] = ..., enabled: _Optional[bool] = ..., channels: _Optional[_Union[_common_pb2.ChannelFlags, _Mapping]] = ..., workflow: _Optional[_Union[InboxPreferenceWorkflow, _Mapping]] = ...) -> None: ...

class ListInboxPreferencesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListInboxPreferencesResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[InboxPreference]
    def __init__(self, data: _Optional[_Iterable[_Union[InboxPreference, _Mapping]]] = ...) -> None: ...

class UpdateInboxPreferenceRequest(_message.Message):
    __slots__ = ("workflow_id", "email", "sms", "in_app", "chat", "push")
    WORKFLOW_ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    SMS_FIELD_NUMBER: _ClassVar[int]
    IN_APP_FIELD_NUMBER: _ClassVar[int]
    CHAT_FIELD_NUMBER: _ClassVar[int]
    PUSH_FIELD_NUMBER: _ClassVar[int]
    workflow_id: str
    email: bool
    sms: bool
    in_app: bool
    chat: bool
    push: bool
    def __init__(self, workflow_id: _Optional[str] = ..., email: _Optional[bool] = ..., sms: _Optional[bool] = ..., in_app: _Optional[bool] = ..., chat: _Optional[bool] = ..., push: _Optional[bool] = ...) -> None: ...

class UpdateInboxPreferenceResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: InboxPreference
    def __init__(self, data: _Optional[_Union[InboxPreference, _Mapping]] = ...) -> None: ...

class StreamInboxEventsRequest(_message.Message):
    __slots__ = ("last_event_id",)
    LAST_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    last_event_id: int
    def __init__(self, last_event_id: _Optional[int] = ...) -> None: ...

class InboxEventKindEnum(_message.Message):
    __slots__ = ()
    class InboxEventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        INBOX_EVENT_KIND_UNSPECIFIED: _ClassVar[InboxEventKindEnum.InboxEventKind]
        received: _ClassVar[InboxEventKindEnum.InboxEventKind]
        changed: _ClassVar[InboxEventKindEnum.InboxEventKind]
        reset: _ClassVar[InboxEventKindEnum.InboxEventKind]
        counts: _ClassVar[InboxEventKindEnum.InboxEventKind]
    INBOX_EVENT_KIND_UNSPECIFIED: InboxEventKindEnum.InboxEventKind
    received: InboxEventKindEnum.InboxEventKind
    changed: InboxEventKindEnum.InboxEventKind
    reset: InboxEventKindEnum.InboxEventKind
    counts: InboxEventKindEnum.InboxEventKind
    def __init__(self) -> None: ...

class InboxEvent(_message.Message):
    __slots__ = ("id", "kind", "change", "notification", "unread_count", "unseen_count")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_FIELD_NUMBER: _ClassVar[int]
    UNREAD_COUNT_FIELD_NUMBER: _ClassVar[int]
    UNSEEN_COUNT_FIELD_NUMBER: _ClassVar[int]
    id: int
    kind: InboxEventKindEnum.InboxEventKind
    change: str
    notification: InboxNotification
    unread_count: int
    unseen_count: int
    def __init__(self, id: _Optional[int] = ..., kind: _Optional[_Union[InboxEventKindEnum.InboxEventKind, str]] = ..., change: _Optional[str] = ..., notification: _Optional[_Union[InboxNotification, _Mapping]] = ..., unread_count: _Optional[int] = ..., unseen_count: _Optional[int] = ...) -> None: ...

class StreamInboxEventsResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: InboxEvent
    def __init__(self, event: _Optional[_Union[InboxEvent, _Mapping]] = ...) -> None: ...
