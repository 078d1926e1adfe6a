from google.protobuf import struct_pb2 as _struct_pb2
from herald.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WorkflowStatusEnum(_message.Message):
    __slots__ = ()
    class WorkflowStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        WORKFLOW_STATUS_UNSPECIFIED: _ClassVar[WorkflowStatusEnum.WorkflowStatus]
        ACTIVE: _ClassVar[WorkflowStatusEnum.WorkflowStatus]
        INACTIVE: _ClassVar[WorkflowStatusEnum.WorkflowStatus]
        ERROR: _ClassVar[WorkflowStatusEnum.WorkflowStatus]
    WORKFLOW_STATUS_UNSPECIFIED: WorkflowStatusEnum.WorkflowStatus
    ACTIVE: WorkflowStatusEnum.WorkflowStatus
    INACTIVE: WorkflowStatusEnum.WorkflowStatus
    ERROR: WorkflowStatusEnum.WorkflowStatus
    def __init__(self) -> None: ...

class Workflow(_message.Message):
    __slots__ = ("name", "description", "tags", "active", "validate_payload", "payload_schema", "is_translation_enabled", "id", "workflow_id", "slug", "updated_at", "created_at", "updated_by", "last_published_at", "last_published_by", "steps", "origin", "preferences", "status", "issues", "last_triggered_at", "payload_example", "severity")
    class IssuesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: RuntimeIssue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[RuntimeIssue, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    VALIDATE_PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    IS_TRANSLATION_ENABLED_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_BY_FIELD_NUMBER: _ClassVar[int]
    LAST_PUBLISHED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_PUBLISHED_BY_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    PREFERENCES_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ISSUES_FIELD_NUMBER: _ClassVar[int]
    LAST_TRIGGERED_AT_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_EXAMPLE_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    active: bool
    validate_payload: bool
    payload_schema: _struct_pb2.Struct
    is_translation_enabled: bool
    id: str
    workflow_id: str
    slug: str
    updated_at: str
    created_at: str
    updated_by: WorkflowUser
    last_published_at: str
    last_published_by: WorkflowUser
    steps: _containers.RepeatedCompositeFieldContainer[WorkflowStep]
    origin: str
    preferences: WorkflowPreferences
    status: WorkflowStatusEnum.WorkflowStatus
    issues: _containers.MessageMap[str, RuntimeIssue]
    last_triggered_at: str
    payload_example: _struct_pb2.Struct
    severity: _common_pb2.SeverityEnum.Severity
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., active: _Optional[bool] = ..., validate_payload: _Optional[bool] = ..., payload_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., is_translation_enabled: _Optional[bool] = ..., id: _Optional[str] = ..., workflow_id: _Optional[str] = ..., slug: _Optional[str] = ..., updated_at: _Optional[str] = ..., created_at: _Optional[str] = ..., updated_by: _Optional[_Union[WorkflowUser, _Mapping]] = ..., last_published_at: _Optional[str] = ..., last_published_by: _Optional[_Union[WorkflowUser, _Mapping]] = ..., steps: _Optional[_Iterable[_Union[WorkflowStep, _Mapping]]] = ..., origin: _Optional[str] = ..., preferences: _Optional[_Union[WorkflowPreferences, _Mapping]] = ..., status: _Optional[_Union[WorkflowStatusEnum.WorkflowStatus, str]] = ..., issues: _Optional[_Mapping[str, RuntimeIssue]] = ..., last_triggered_at: _Optional[str] = ..., payload_example: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., severity: _Optional[_Union[_common_pb2.SeverityEnum.Severity, str]] = ...) -> None: ...

class WorkflowUser(_message.Message):
    __slots__ = ("id", "first_name", "last_name", "external_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_NAME_FIELD_NUMBER: _ClassVar[int]
    LAST_NAME_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    first_name: str
    last_name: _struct_pb2.Value
    external_id: str
    def __init__(self, id: _Optional[str] = ..., first_name: _Optional[str] = ..., last_name: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., external_id: _Optional[str] = ...) -> None: ...

class WorkflowStep(_message.Message):
    __slots__ = ("controls", "control_values", "variables", "step_id", "id", "name", "slug", "type", "origin", "workflow_id", "workflow_database_id", "issues", "filters", "should_stop_on_fail")
    CONTROLS_FIELD_NUMBER: _ClassVar[int]
    CONTROL_VALUES_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_ID_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_DATABASE_ID_FIELD_NUMBER: _ClassVar[int]
    ISSUES_FIELD_NUMBER: _ClassVar[int]
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    SHOULD_STOP_ON_FAIL_FIELD_NUMBER: _ClassVar[int]
    controls: StepControls
    control_values: _struct_pb2.Struct
    variables: _struct_pb2.Struct
    step_id: str
    id: str
    name: str
    slug: str
    type: _common_pb2.StepTypeEnum.StepType
    origin: str
    workflow_id: str
    workflow_database_id: str
    issues: StepIssues
    filters: _containers.RepeatedCompositeFieldContainer[_common_pb2.StepFilter]
    should_stop_on_fail: bool
    def __init__(self, controls: _Optional[_Union[StepControls, _Mapping]] = ..., control_values: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., variables: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., step_id: _Optional[str] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., slug: _Optional[str] = ..., type: _Optional[_Union[_common_pb2.StepTypeEnum.StepType, str]] = ..., origin: _Optional[str] = ..., workflow_id: _Optional[str] = ..., workflow_database_id: _Optional[str] = ..., issues: _Optional[_Union[StepIssues, _Mapping]] = ..., filters: _Optional[_Iterable[_Union[_common_pb2.StepFilter, _Mapping]]] = ..., should_stop_on_fail: _Optional[bool] = ...) -> None: ...

class StepControls(_message.Message):
    __slots__ = ("data_schema", "ui_schema", "values")
    DATA_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    UI_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    data_schema: _struct_pb2.Struct
    ui_schema: UiSchema
    values: _struct_pb2.Struct
    def __init__(self, data_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., ui_schema: _Optional[_Union[UiSchema, _Mapping]] = ..., values: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class UiSchemaGroupEnum(_message.Message):
    __slots__ = ()
    class UiSchemaGroup(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UI_SCHEMA_GROUP_UNSPECIFIED: _ClassVar[UiSchemaGroupEnum.UiSchemaGroup]
        IN_APP: _ClassVar[UiSchemaGroupEnum.UiSchemaGroup]
        EMAIL: _ClassVar[UiSchemaGroupEnum.UiSchemaGroup]
        DIGEST: _ClassVar[UiSchemaGroupEnum.UiSchemaGroup]
        DELAY: _ClassVar[UiSchemaGroupEnum.UiSchemaGroup]
        SMS: _ClassVar[UiSchemaGroupEnum.UiSchemaGroup]
        CHAT: _ClassVar[UiSchemaGroupEnum.UiSchemaGroup]
        PUSH: _ClassVar[UiSchemaGroupEnum.UiSchemaGroup]
        SKIP: _ClassVar[UiSchemaGroupEnum.UiSchemaGroup]
        LAYOUT: _ClassVar[UiSchemaGroupEnum.UiSchemaGroup]
    UI_SCHEMA_GROUP_UNSPECIFIED: UiSchemaGroupEnum.UiSchemaGroup
    IN_APP: UiSchemaGroupEnum.UiSchemaGroup
    EMAIL: UiSchemaGroupEnum.UiSchemaGroup
    DIGEST: UiSchemaGroupEnum.UiSchemaGroup
    DELAY: UiSchemaGroupEnum.UiSchemaGroup
    SMS: UiSchemaGroupEnum.UiSchemaGroup
    CHAT: UiSchemaGroupEnum.UiSchemaGroup
    PUSH: UiSchemaGroupEnum.UiSchemaGroup
    SKIP: UiSchemaGroupEnum.UiSchemaGroup
    LAYOUT: UiSchemaGroupEnum.UiSchemaGroup
    def __init__(self) -> None: ...

class UiComponentEnum(_message.Message):
    __slots__ = ()
    class UiComponent(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UI_COMPONENT_UNSPECIFIED: _ClassVar[UiComponentEnum.UiComponent]
        EMAIL_EDITOR_SELECT: _ClassVar[UiComponentEnum.UiComponent]
        LAYOUT_SELECT: _ClassVar[UiComponentEnum.UiComponent]
        BLOCK_EDITOR: _ClassVar[UiComponentEnum.UiComponent]
        EMAIL_BODY: _ClassVar[UiComponentEnum.UiComponent]
        TEXT_FULL_LINE: _ClassVar[UiComponentEnum.UiComponent]
        TEXT_INLINE_LABEL: _ClassVar[UiComponentEnum.UiComponent]
        IN_APP_BODY: _ClassVar[UiComponentEnum.UiComponent]
        IN_APP_AVATAR: _ClassVar[UiComponentEnum.UiComponent]
        IN_APP_PRIMARY_SUBJECT: _ClassVar[UiComponentEnum.UiComponent]
        IN_APP_BUTTON_DROPDOWN: _ClassVar[UiComponentEnum.UiComponent]
        IN_APP_DISABLE_SANITIZATION_SWITCH: _ClassVar[UiComponentEnum.UiComponent]
        DISABLE_SANITIZATION_SWITCH: _ClassVar[UiComponentEnum.UiComponent]
        URL_TEXT_BOX: _ClassVar[UiComponentEnum.UiComponent]
        DIGEST_AMOUNT: _ClassVar[UiComponentEnum.UiComponent]
        DIGEST_UNIT: _ClassVar[UiComponentEnum.UiComponent]
        DIGEST_KEY: _ClassVar[UiComponentEnum.UiComponent]
        DIGEST_CRON: _ClassVar[UiComponentEnum.UiComponent]
        DELAY_TYPE: _ClassVar[UiComponentEnum.UiComponent]
        DELAY_AMOUNT: _ClassVar[UiComponentEnum.UiComponent]
        DELAY_UNIT: _ClassVar[UiComponentEnum.UiComponent]
        EXTEND_TO_SCHEDULE: _ClassVar[UiComponentEnum.UiComponent]
        SMS_BODY: _ClassVar[UiComponentEnum.UiComponent]
        CHAT_BODY: _ClassVar[UiComponentEnum.UiComponent]
        PUSH_BODY: _ClassVar[UiComponentEnum.UiComponent]
        PUSH_SUBJECT: _ClassVar[UiComponentEnum.UiComponent]
        QUERY_EDITOR: _ClassVar[UiComponentEnum.UiComponent]
        DATA: _ClassVar[UiComponentEnum.UiComponent]
        LAYOUT_EMAIL: _ClassVar[UiComponentEnum.UiComponent]
    UI_COMPONENT_UNSPECIFIED: UiComponentEnum.UiComponent
    EMAIL_EDITOR_SELECT: UiComponentEnum.UiComponent
    LAYOUT_SELECT: UiComponentEnum.UiComponent
    BLOCK_EDITOR: UiComponentEnum.UiComponent
    EMAIL_BODY: UiComponentEnum.UiComponent
    TEXT_FULL_LINE: UiComponentEnum.UiComponent
    TEXT_INLINE_LABEL: UiComponentEnum.UiComponent
    IN_APP_BODY: UiComponentEnum.UiComponent
    IN_APP_AVATAR: UiComponentEnum.UiComponent
    IN_APP_PRIMARY_SUBJECT: UiComponentEnum.UiComponent
    IN_APP_BUTTON_DROPDOWN: UiComponentEnum.UiComponent
    IN_APP_DISABLE_SANITIZATION_SWITCH: UiComponentEnum.UiComponent
    DISABLE_SANITIZATION_SWITCH: UiComponentEnum.UiComponent
    URL_TEXT_BOX: UiComponentEnum.UiComponent
    DIGEST_AMOUNT: UiComponentEnum.UiComponent
    DIGEST_UNIT: UiComponentEnum.UiComponent
    DIGEST_KEY: UiComponentEnum.UiComponent
    DIGEST_CRON: UiComponentEnum.UiComponent
    DELAY_TYPE: UiComponentEnum.UiComponent
    DELAY_AMOUNT: UiComponentEnum.UiComponent
    DELAY_UNIT: UiComponentEnum.UiComponent
    EXTEND_TO_SCHEDULE: UiComponentEnum.UiComponent
    SMS_BODY: UiComponentEnum.UiComponent
    CHAT_BODY: UiComponentEnum.UiComponent
    PUSH_BODY: UiComponentEnum.UiComponent
    PUSH_SUBJECT: UiComponentEnum.UiComponent
    QUERY_EDITOR: UiComponentEnum.UiComponent
    DATA: UiComponentEnum.UiComponent
    LAYOUT_EMAIL: UiComponentEnum.UiComponent
    def __init__(self) -> None: ...

class UiSchema(_message.Message):
    __slots__ = ("group", "properties")
    class PropertiesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: UiSchemaProperty
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[UiSchemaProperty, _Mapping]] = ...) -> None: ...
    GROUP_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    group: UiSchemaGroupEnum.UiSchemaGroup
    properties: _containers.MessageMap[str, UiSchemaProperty]
    def __init__(self, group: _Optional[_Union[UiSchemaGroupEnum.UiSchemaGroup, str]] = ..., properties: _Optional[_Mapping[str, UiSchemaProperty]] = ...) -> None: ...

class UiSchemaProperty(_message.Message):
    __slots__ = ("placeholder", "component", "properties")
    class PropertiesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: UiSchemaProperty
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[UiSchemaProperty, _Mapping]] = ...) -> None: ...
    PLACEHOLDER_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    placeholder: _struct_pb2.Value
    component: UiComponentEnum.UiComponent
    properties: _containers.MessageMap[str, UiSchemaProperty]
    def __init__(self, placeholder: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., component: _Optional[_Union[UiComponentEnum.UiComponent, str]] = ..., properties: _Optional[_Mapping[str, UiSchemaProperty]] = ...) -> None: ...

class StepIssues(_message.Message):
    __slots__ = ("controls", "integration")
    class ControlsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _struct_pb2.ListValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_struct_pb2.ListValue, _Mapping]] = ...) -> None: ...
    class IntegrationEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _struct_pb2.ListValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_struct_pb2.ListValue, _Mapping]] = ...) -> None: ...
    CONTROLS_FIELD_NUMBER: _ClassVar[int]
    INTEGRATION_FIELD_NUMBER: _ClassVar[int]
    controls: _containers.MessageMap[str, _struct_pb2.ListValue]
    integration: _containers.MessageMap[str, _struct_pb2.ListValue]
    def __init__(self, controls: _Optional[_Mapping[str, _struct_pb2.ListValue]] = ..., integration: _Optional[_Mapping[str, _struct_pb2.ListValue]] = ...) -> None: ...

class ContentIssueTypeEnum(_message.Message):
    __slots__ = ()
    class ContentIssueType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CONTENT_ISSUE_TYPE_UNSPECIFIED: _ClassVar[ContentIssueTypeEnum.ContentIssueType]
        ILLEGAL_VARIABLE_IN_CONTROL_VALUE: _ClassVar[ContentIssueTypeEnum.ContentIssueType]
        INVALID_FILTER_ARG_IN_VARIABLE: _ClassVar[ContentIssueTypeEnum.ContentIssueType]
        MISSING_VALUE: _ClassVar[ContentIssueTypeEnum.ContentIssueType]
        TIER_LIMIT_EXCEEDED: _ClassVar[ContentIssueTypeEnum.ContentIssueType]
    CONTENT_ISSUE_TYPE_UNSPECIFIED: ContentIssueTypeEnum.ContentIssueType
    ILLEGAL_VARIABLE_IN_CONTROL_VALUE: ContentIssueTypeEnum.ContentIssueType
    INVALID_FILTER_ARG_IN_VARIABLE: ContentIssueTypeEnum.ContentIssueType
    MISSING_VALUE: ContentIssueTypeEnum.ContentIssueType
    TIER_LIMIT_EXCEEDED: ContentIssueTypeEnum.ContentIssueType
    def __init__(self) -> None: ...

class ControlIssue(_message.Message):
    __slots__ = ("issue_type", "variable_name", "message")
    ISSUE_TYPE_FIELD_NUMBER: _ClassVar[int]
    VARIABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    issue_type: ContentIssueTypeEnum.ContentIssueType
    variable_name: str
    message: str
    def __init__(self, issue_type: _Optional[_Union[ContentIssueTypeEnum.ContentIssueType, str]] = ..., variable_name: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class IntegrationIssueTypeEnum(_message.Message):
    __slots__ = ()
    class IntegrationIssueType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        INTEGRATION_ISSUE_TYPE_UNSPECIFIED: _ClassVar[IntegrationIssueTypeEnum.IntegrationIssueType]
        MISSING_INTEGRATION: _ClassVar[IntegrationIssueTypeEnum.IntegrationIssueType]
        INBOX_NOT_CONNECTED: _ClassVar[IntegrationIssueTypeEnum.IntegrationIssueType]
    INTEGRATION_ISSUE_TYPE_UNSPECIFIED: IntegrationIssueTypeEnum.IntegrationIssueType
    MISSING_INTEGRATION: IntegrationIssueTypeEnum.IntegrationIssueType
    INBOX_NOT_CONNECTED: IntegrationIssueTypeEnum.IntegrationIssueType
    def __init__(self) -> None: ...

class IntegrationIssue(_message.Message):
    __slots__ = ("issue_type", "variable_name", "message")
    ISSUE_TYPE_FIELD_NUMBER: _ClassVar[int]
    VARIABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    issue_type: IntegrationIssueTypeEnum.IntegrationIssueType
    variable_name: str
    message: str
    def __init__(self, issue_type: _Optional[_Union[IntegrationIssueTypeEnum.IntegrationIssueType, str]] = ..., variable_name: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class RuntimeIssueTypeEnum(_message.Message):
    __slots__ = ()
    class RuntimeIssueType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        RUNTIME_ISSUE_TYPE_UNSPECIFIED: _ClassVar[RuntimeIssueTypeEnum.RuntimeIssueType]
        MISSING_VALUE: _ClassVar[RuntimeIssueTypeEnum.RuntimeIssueType]
        MAX_LENGTH_ACCESSED: _ClassVar[RuntimeIssueTypeEnum.RuntimeIssueType]
        WORKFLOW_ID_ALREADY_EXISTS: _ClassVar[RuntimeIssueTypeEnum.RuntimeIssueType]
        DUPLICATED_VALUE: _ClassVar[RuntimeIssueTypeEnum.RuntimeIssueType]
        LIMIT_REACHED: _ClassVar[RuntimeIssueTypeEnum.RuntimeIssueType]
    RUNTIME_ISSUE_TYPE_UNSPECIFIED: RuntimeIssueTypeEnum.RuntimeIssueType
    MISSING_VALUE: RuntimeIssueTypeEnum.RuntimeIssueType
    MAX_LENGTH_ACCESSED: RuntimeIssueTypeEnum.RuntimeIssueType
    WORKFLOW_ID_ALREADY_EXISTS: RuntimeIssueTypeEnum.RuntimeIssueType
    DUPLICATED_VALUE: RuntimeIssueTypeEnum.RuntimeIssueType
    LIMIT_REACHED: RuntimeIssueTypeEnum.RuntimeIssueType
    def __init__(self) -> None: ...

class RuntimeIssue(_message.Message):
    __slots__ = ("issue_type", "variable_name", "message")
    ISSUE_TYPE_FIELD_NUMBER: _ClassVar[int]
    VARIABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    issue_type: RuntimeIssueTypeEnum.RuntimeIssueType
    variable_name: str
    message: str
    def __init__(self, issue_type: _Optional[_Union[RuntimeIssueTypeEnum.RuntimeIssueType, str]] = ..., variable_name: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class PreferenceLevel(_message.Message):
    __slots__ = ("all", "channels")
    class ChannelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ChannelPreference
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ChannelPreference, _Mapping]] = ...) -> None: ...
    ALL_FIELD_NUMBER: _ClassVar[int]
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    all: WorkflowPreference
    channels: _containers.MessageMap[str, ChannelPreference]
    def __init__(self, all: _Optional[_Union[WorkflowPreference, _Mapping]] = ..., channels: _Optional[_Mapping[str, ChannelPreference]] = ...) -> None: ...

class WorkflowPreference(_message.Message):
    __slots__ = ("enabled", "read_only")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    read_only: bool
    def __init__(self, enabled: _Optional[bool] = ..., read_only: _Optional[bool] = ...) -> None: ...

class ChannelPreference(_message.Message):
    __slots__ = ("enabled",)
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    def __init__(self, enabled: _Optional[bool] = ...) -> None: ...

class WorkflowPreferences(_message.Message):
    __slots__ = ("user", "default_preferences")
    USER_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_PREFERENCES_FIELD_NUMBER: _ClassVar[int]
    user: PreferenceLevel
    default_preferences: PreferenceLevel
    def __init__(self, user: _Optional[_Union[PreferenceLevel, _Mapping]] = ..., default_preferences: _Optional[_Union[PreferenceLevel, _Mapping]] = ...) -> None: ...

class WorkflowPreferencesInput(_message.Message):
    __slots__ = ("user", "workflow")
    USER_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    user: PreferenceLevel
    workflow: PreferenceLevel
    def __init__(self, user: _Optional[_Union[PreferenceLevel, _Mapping]] = ..., workflow: _Optional[_Union[PreferenceLevel, _Mapping]] = ...) -> None: ...

class WorkflowInput(_message.Message):
    __slots__ = ("name", "description", "tags", "active", "validate_payload", "payload_schema", "is_translation_enabled", "workflow_id", "steps", "preferences", "origin", "severity")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    VALIDATE_PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    IS_TRANSLATION_ENABLED_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_ID_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    PREFERENCES_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    active: bool
    validate_payload: bool
    payload_schema: _struct_pb2.Struct
    is_translation_enabled: bool
    workflow_id: str
    steps: _containers.RepeatedCompositeFieldContainer[WorkflowStepInput]
    preferences: WorkflowPreferencesInput
    origin: str
    severity: _common_pb2.SeverityEnum.Severity
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., active: _Optional[bool] = ..., validate_payload: _Optional[bool] = ..., payload_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., is_translation_enabled: _Optional[bool] = ..., workflow_id: _Optional[str] = ..., steps: _Optional[_Iterable[_Union[WorkflowStepInput, _Mapping]]] = ..., preferences: _Optional[_Union[WorkflowPreferencesInput, _Mapping]] = ..., origin: _Optional[str] = ..., severity: _Optional[_Union[_common_pb2.SeverityEnum.Severity, str]] = ...) -> None: ...

class WorkflowStepInput(_message.Message):
    __slots__ = ("id", "step_id", "name", "type", "control_values", "filters", "should_stop_on_fail")
    ID_FIELD_NUMBER: _ClassVar[int]
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTROL_VALUES_FIELD_NUMBER: _ClassVar[int]
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    SHOULD_STOP_ON_FAIL_FIELD_NUMBER: _ClassVar[int]
    id: str
    step_id: str
    name: str
    type: _common_pb2.StepTypeEnum.StepType
    control_values: _struct_pb2.Struct
    filters: _containers.RepeatedCompositeFieldContainer[_common_pb2.StepFilter]
    should_stop_on_fail: bool
    def __init__(self, id: _Optional[str] = ..., step_id: _Optional[str] = ..., name: _Optional[str] = ..., type: _Optional[_Union[_common_pb2.StepTypeEnum.StepType, str]] = ..., control_values: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., filters: _Optional[_Iterable[_Union[_common_pb2.StepFilter, _Mapping]]] = ..., should_stop_on_fail: _Optional[bool] = ...) -> None: ...

class WorkflowSummary(_message.Message):
    __slots__ = ("name", "tags", "updated_at", "created_at", "updated_by", "last_published_at", "last_published_by", "id", "workflow_id", "slug", "status", "origin", "last_triggered_at", "step_type_overviews", "is_translation_enabled", "steps")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_BY_FIELD_NUMBER: _ClassVar[int]
    LAST_PUBLISHED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_PUBLISHED_BY_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    LAST_TRIGGERED_AT_FIELD_NUMBER: _ClassVar[int]
    STEP_TYPE_OVERVIEWS_FIELD_NUMBER: _ClassVar[int]
    IS_TRANSLATION_ENABLED_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    name: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    updated_at: str
    created_at: str
    updated_by: WorkflowUser
    last_published_at: str
    last_published_by: WorkflowUser
    id: str
    workflow_id: str
    slug: str
    status: WorkflowStatusEnum.WorkflowStatus
    origin: str
    last_triggered_at: str
    step_type_overviews: _containers.RepeatedScalarFieldContainer[_common_pb2.StepTypeEnum.StepType]
    is_translation_enabled: bool
    steps: _containers.RepeatedCompositeFieldContainer[WorkflowStepSummary]
    def __init__(self, name: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., updated_at: _Optional[str] = ..., created_at: _Optional[str] = ..., updated_by: _Optional[_Union[WorkflowUser, _Mapping]] = ..., last_published_at: _Optional[str] = ..., last_published_by: _Optional[_Union[WorkflowUser, _Mapping]] = ..., id: _Optional[str] = ..., workflow_id: _Optional[str] = ..., slug: _Optional[str] = ..., status: _Optional[_Union[WorkflowStatusEnum.WorkflowStatus, str]] = ..., origin: _Optional[str] = ..., last_triggered_at: _Optional[str] = ..., step_type_overviews: _Optional[_Iterable[_Union[_common_pb2.StepTypeEnum.StepType, str]]] = ..., is_translation_enabled: _Optional[bool] = ..., steps: _Optional[_Iterable[_Union[WorkflowStepSummary, _Mapping]]] = ...) -> None: ...

class WorkflowStepSummary(_message.Message):
    __slots__ = ("slug", "type", "issues")
    SLUG_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    ISSUES_FIELD_NUMBER: _ClassVar[int]
    slug: str
    type: _common_pb2.StepTypeEnum.StepType
    issues: StepIssues
    def __init__(self, slug: _Optional[str] = ..., type: _Optional[_Union[_common_pb2.StepTypeEnum.StepType, str]] = ..., issues: _Optional[_Union[StepIssues, _Mapping]] = ...) -> None: ...

class CreateWorkflowRequest(_message.Message):
    __slots__ = ("workflow",)
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    workflow: WorkflowInput
    def __init__(self, workflow: _Optional[_Union[WorkflowInput, _Mapping]] = ...) -> None: ...

class CreateWorkflowResponse(_message.Message):
    __slots__ = ("workflow",)
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    workflow: Workflow
    def __init__(self, workflow: _Optional[_Union[Workflow, _Mapping]] = ...) -> None: ...

class GetWorkflowRequest(_message.Message):
    __slots__ = ("workflow_id",)
    WORKFLOW_ID_FIELD_NUMBER: _ClassVar[int]
    workflow_id: str
    def __init__(self, workflow_id: _Optional[str] = ...) -> None: ...

class GetWorkflowResponse(_message.Message):
    __slots__ = ("workflow",)
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    workflow: Workflow
    def __init__(self, workflow: _Optional[_Union[Workflow, _Mapping]] = ...) -> None: ...

class ListWorkflowsRequest(_message.Message):
    __slots__ = ("offset", "limit", "query")
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    offset: int
    limit: int
    query: str
    def __init__(self, offset: _Optional[int] = ..., limit: _Optional[int] = ..., query: _Optional[str] = ...) -> None: ...

class ListWorkflowsResponse(_message.Message):
    __slots__ = ("workflows", "total_count")
    WORKFLOWS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    workflows: _containers.RepeatedCompositeFieldContainer[WorkflowSummary]
    total_count: int
    def __init__(self, workflows: _Optional[_Iterable[_Union[WorkflowSummary, _Mapping]]] = ..., total_count: _Optional[int] = ...) -> None: ...

class UpdateWorkflowRequest(_message.Message):
    __slots__ = ("workflow_id", "workflow")
    WORKFLOW_ID_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    workflow_id: str
    workflow: WorkflowInput
    def __init__(self, workflow_id: _Optional[str] = ..., workflow: _Optional[_Union[WorkflowInput, _Mapping]] = ...) -> None: ...

class UpdateWorkflowResponse(_message.Message):
    __slots__ = ("workflow",)
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    workflow: Workflow
    def __init__(self, workflow: _Optional[_Union[Workflow, _Mapping]] = ...) -> None: ...

class DeleteWorkflowRequest(_message.Message):
    __slots__ = ("workflow_id",)
    WORKFLOW_ID_FIELD_NUMBER: _ClassVar[int]
    workflow_id: str
    def __init__(self, workflow_id: _Optional[str] = ...) -> None: ...

class DeleteWorkflowResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class NotificationTemplate(_message.Message):
    __slots__ = ("id", "name", "description", "active", "draft", "preference_settings", "critical", "tags", "steps", "organization_id", "creator_id", "environment_id", "triggers", "notification_group_id", "parent_id", "deleted", "deleted_at", "deleted_by", "notification_group", "data", "workflow_integration_status")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    DRAFT_FIELD_NUMBER: _ClassVar[int]
    PREFERENCE_SETTINGS_FIELD_NUMBER: _ClassVar[int]
    CRITICAL_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_ID_FIELD_NUMBER: _ClassVar[int]
    TRIGGERS_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    DELETED_AT_FIELD_NUMBER: _ClassVar[int]
    DELETED_BY_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_GROUP_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_INTEGRATION_STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    description: str
    active: bool
    draft: bool
    preference_settings: _common_pb2.ChannelFlags
    critical: bool
    tags: _containers.RepeatedScalarFieldContainer[str]
    steps: _containers.RepeatedCompositeFieldContainer[NotificationStep]
    organization_id: str
    creator_id: str
    environment_id: str
    triggers: _containers.RepeatedCompositeFieldContainer[NotificationTrigger]
    notification_group_id: str
    parent_id: str
    deleted: bool
    deleted_at: str
    deleted_by: str
    notification_group: NotificationGroup
    data: _struct_pb2.Struct
    workflow_integration_status: _struct_pb2.Struct
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., active: _Optional[bool] = ..., draft: _Optional[bool] = ..., preference_settings: _Optional[_Union[_common_pb2.ChannelFlags, _Mapping]] = ..., critical: _Optional[bool] = ..., tags: _Optional[_Iterable[str]] = ..., steps: _Optional[_Iterable[_Union[NotificationStep, _Mapping]]] = ..., organization_id: _Optional[str] = ..., creator_id: _Optional[str] = ..., environment_id: _Optional[str] = ..., triggers: _Optional[_Iterable[_Union[NotificationTrigger, _Mapping]]] = ..., notification_group_id: _Optional[str] = ..., parent_id: _Optional[str] = ..., deleted: _Optional[bool] = ..., deleted_at: _Optional[str] = ..., deleted_by: _Optional[str] = ..., notification_group: _Optional[_Union[NotificationGroup, _Mapping]] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., workflow_integration_status: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class NotificationGroup(_message.Message):
    __slots__ = ("id", "name", "environment_id", "organization_id", "parent_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    environment_id: str
    organization_id: str
    parent_id: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., environment_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., parent_id: _Optional[str] = ...) -> None: ...

class TriggerTypeEnum(_message.Message):
    __slots__ = ()
    class TriggerType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TRIGGER_TYPE_UNSPECIFIED: _ClassVar[TriggerTypeEnum.TriggerType]
        event: _ClassVar[TriggerTypeEnum.TriggerType]
    TRIGGER_TYPE_UNSPECIFIED: TriggerTypeEnum.TriggerType
    event: TriggerTypeEnum.TriggerType
    def __init__(self) -> None: ...

class NotificationTrigger(_message.Message):
    __slots__ = ("type", "identifier", "variables", "subscriber_variables")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_VARIABLES_FIELD_NUMBER: _ClassVar[int]
    type: TriggerTypeEnum.TriggerType
    identifier: str
    variables: _containers.RepeatedCompositeFieldContainer[NotificationTriggerVariable]
    subscriber_variables: _containers.RepeatedCompositeFieldContainer[NotificationTriggerVariable]
    def __init__(self, type: _Optional[_Union[TriggerTypeEnum.TriggerType, str]] = ..., identifier: _Optional[str] = ..., variables: _Optional[_Iterable[_Union[NotificationTriggerVariable, _Mapping]]] = ..., subscriber_variables: _Optional[_Iterable[_Union[NotificationTriggerVariable, _Mapping]]] = ...) -> None: ...

class NotificationTriggerVariable(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class NotificationStep(_message.Message):
    __slots__ = ("id", "uuid", "name", "template_id", "active", "should_stop_on_fail", "template", "filters", "parent_id", "metadata", "reply_callback", "variants")
    ID_FIELD_NUMBER: _ClassVar[int]
    UUID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_ID_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    SHOULD_STOP_ON_FAIL_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    REPLY_CALLBACK_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    uuid: str
    name: str
    template_id: str
    active: bool
    should_stop_on_fail: bool
    template: _struct_pb2.Struct
    filters: _containers.RepeatedCompositeFieldContainer[_common_pb2.StepFilter]
    parent_id: str
    metadata: StepMetadata
    reply_callback: ReplyCallback
    variants: _containers.RepeatedCompositeFieldContainer[NotificationStepVariant]
    def __init__(self, id: _Optional[str] = ..., uuid: _Optional[str] = ..., name: _Optional[str] = ..., template_id: _Optional[str] = ..., active: _Optional[bool] = ..., should_stop_on_fail: _Optional[bool] = ..., template: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., filters: _Optional[_Iterable[_Union[_common_pb2.StepFilter, _Mapping]]] = ..., parent_id: _Optional[str] = ..., metadata: _Optional[_Union[StepMetadata, _Mapping]] = ..., reply_callback: _Optional[_Union[ReplyCallback, _Mapping]] = ..., variants: _Optional[_Iterable[_Union[NotificationStepVariant, _Mapping]]] = ...) -> None: ...

class NotificationStepVariant(_message.Message):
    __slots__ = ("id", "uuid", "name", "template_id", "active", "should_stop_on_fail", "template", "filters", "parent_id", "metadata", "reply_callback")
    ID_FIELD_NUMBER: _ClassVar[int]
    UUID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_ID_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    SHOULD_STOP_ON_FAIL_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    REPLY_CALLBACK_FIELD_NUMBER: _ClassVar[int]
    id: str
    uuid: str
    name: str
    template_id: str
    active: bool
    should_stop_on_fail: bool
    template: _struct_pb2.Struct
    filters: _containers.RepeatedCompositeFieldContainer[_common_pb2.StepFilter]
    parent_id: str
    metadata: StepMetadata
    reply_callback: ReplyCallback
    def __init__(self, id: _Optional[str] = ..., uuid: _Optional[str] = ..., name: _Optional[str] = ..., template_id: _Optional[str] = ..., active: _Optional[bool] = ..., should_stop_on_fail: _Optional[bool] = ..., template: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., filters: _Optional[_Iterable[_Union[_common_pb2.StepFilter, _Mapping]]] = ..., parent_id: _Optional[str] = ..., metadata: _Optional[_Union[StepMetadata, _Mapping]] = ..., reply_callback: _Optional[_Union[ReplyCallback, _Mapping]] = ...) -> None: ...

class StepMetadataTypeEnum(_message.Message):
    __slots__ = ()
    class StepMetadataType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STEP_METADATA_TYPE_UNSPECIFIED: _ClassVar[StepMetadataTypeEnum.StepMetadataType]
        regular: _ClassVar[StepMetadataTypeEnum.StepMetadataType]
        backoff: _ClassVar[StepMetadataTypeEnum.StepMetadataType]
        timed: _ClassVar[StepMetadataTypeEnum.StepMetadataType]
        scheduled: _ClassVar[StepMetadataTypeEnum.StepMetadataType]
    STEP_METADATA_TYPE_UNSPECIFIED: StepMetadataTypeEnum.StepMetadataType
    regular: StepMetadataTypeEnum.StepMetadataType
    backoff: StepMetadataTypeEnum.StepMetadataType
    timed: StepMetadataTypeEnum.StepMetadataType
    scheduled: StepMetadataTypeEnum.StepMetadataType
    def __init__(self) -> None: ...

class StepMetadata(_message.Message):
    __slots__ = ("type", "amount", "unit", "digest_key", "backoff", "backoff_amount", "backoff_unit", "update_mode", "timed", "delay_path")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    DIGEST_KEY_FIELD_NUMBER: _ClassVar[int]
    BACKOFF_FIELD_NUMBER: _ClassVar[int]
    BACKOFF_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    BACKOFF_UNIT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MODE_FIELD_NUMBER: _ClassVar[int]
    TIMED_FIELD_NUMBER: _ClassVar[int]
    DELAY_PATH_FIELD_NUMBER: _ClassVar[int]
    type: StepMetadataTypeEnum.StepMetadataType
    amount: int
    unit: _common_pb2.TimeUnitEnum.TimeUnit
    digest_key: str
    backoff: bool
    backoff_amount: int
    backoff_unit: _common_pb2.TimeUnitEnum.TimeUnit
    update_mode: bool
    timed: TimedConfig
    delay_path: str
    def __init__(self, type: _Optional[_Union[StepMetadataTypeEnum.StepMetadataType, str]] = ..., amount: _Optional[int] = ..., unit: _Optional[_Union[_common_pb2.TimeUnitEnum.TimeUnit, str]] = ..., digest_key: _Optional[str] = ..., backoff: _Optional[bool] = ..., backoff_amount: _Optional[int] = ..., backoff_unit: _Optional[_Union[_common_pb2.TimeUnitEnum.TimeUnit, str]] = ..., update_mode: _Optional[bool] = ..., timed: _Optional[_Union[TimedConfig, _Mapping]] = ..., delay_path: _Optional[str] = ...) -> None: ...

class TimedConfig(_message.Message):
    __slots__ = ("at_time", "week_days", "month_days", "ordinal", "ordinal_value", "monthly_type")
    AT_TIME_FIELD_NUMBER: _ClassVar[int]
    WEEK_DAYS_FIELD_NUMBER: _ClassVar[int]
    MONTH_DAYS_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_VALUE_FIELD_NUMBER: _ClassVar[int]
    MONTHLY_TYPE_FIELD_NUMBER: _ClassVar[int]
    at_time: str
    week_days: _containers.RepeatedScalarFieldContainer[_common_pb2.WeekDayEnum.WeekDay]
    month_days: _containers.RepeatedScalarFieldContainer[str]
    ordinal: str
    ordinal_value: _common_pb2.OrdinalValueEnum.OrdinalValue
    monthly_type: _common_pb2.MonthlyTypeEnum.MonthlyType
    def __init__(self, at_time: _Optional[str] = ..., week_days: _Optional[_Iterable[_Union[_common_pb2.WeekDayEnum.WeekDay, str]]] = ..., month_days: _Optional[_Iterable[str]] = ..., ordinal: _Optional[str] = ..., ordinal_value: _Optional[_Union[_common_pb2.OrdinalValueEnum.OrdinalValue, str]] = ..., monthly_type: _Optional[_Union[_common_pb2.MonthlyTypeEnum.MonthlyType, str]] = ...) -> None: ...

class ReplyCallback(_message.Message):
    __slots__ = ("active", "url")
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    active: bool
    url: str
    def __init__(self, active: _Optional[bool] = ..., url: _Optional[str] = ...) -> None: ...
