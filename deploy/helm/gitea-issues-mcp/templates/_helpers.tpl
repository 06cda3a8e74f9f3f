{{/* Names and labels. */}}
{{- define "gitea-issues-mcp.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "gitea-issues-mcp.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "gitea-issues-mcp.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gitea-issues-mcp.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "gitea-issues-mcp.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "gitea-issues-mcp.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* "true" when a Redis URL is given, by value or by Secret. */}}
{{- define "gitea-issues-mcp.redis" -}}
{{- if or .Values.redis.url .Values.redis.existingSecret }}true{{ end -}}
{{- end -}}

{{/* "true" when sign-in is on. */}}
{{- define "gitea-issues-mcp.signin" -}}
{{- if or .Values.signin.publicUrl .Values.signin.oauthClientId }}true{{ end -}}
{{- end -}}

{{/* The most replicas that can run at once: the autoscaler's ceiling, or replicaCount. */}}
{{- define "gitea-issues-mcp.maxReplicas" -}}
{{- if .Values.autoscaling.enabled }}{{ int .Values.autoscaling.maxReplicas }}{{ else }}{{ int .Values.replicaCount }}{{ end -}}
{{- end -}}

{{/* The fewest replicas that run: the autoscaler's floor, or replicaCount. */}}
{{- define "gitea-issues-mcp.minReplicas" -}}
{{- if .Values.autoscaling.enabled }}{{ int .Values.autoscaling.minReplicas }}{{ else }}{{ int .Values.replicaCount }}{{ end -}}
{{- end -}}

{{/* GITEA_MCP_ALLOWED_HOSTS: the operator's, or the Service's own names on any port. */}}
{{- define "gitea-issues-mcp.allowedHosts" -}}
{{- if .Values.server.allowedHosts -}}
{{- .Values.server.allowedHosts -}}
{{- else -}}
{{- $name := include "gitea-issues-mcp.fullname" . -}}
{{- printf "%s:*,%s.%s:*,%s.%s.svc:*,%s.%s.svc.cluster.local:*" $name $name .Release.Namespace $name .Release.Namespace $name .Release.Namespace -}}
{{- end -}}
{{- end -}}

{{/*
What the server itself would refuse at start, refused here instead, in one sentence each: a chart that renders
is one whose pods start. Mirrors gitea_mcp/settings.py (check_workers, check_signin).
*/}}
{{- define "gitea-issues-mcp.validate" -}}
{{- if not .Values.gitea.url -}}
{{- fail "gitea.url is empty: set it to the forge's base URL, e.g. --set gitea.url=https://gitea.example.com" -}}
{{- end -}}
{{- if not .Values.gitea.allowedOwners -}}
{{- fail "gitea.allowedOwners is empty: set the comma-separated owners agents may use (or '*' for all)" -}}
{{- end -}}
{{- $shared := or (not .Values.gitea.readOnly) (include "gitea-issues-mcp.signin" .) -}}
{{- $max := int (include "gitea-issues-mcp.maxReplicas" .) -}}
{{- if and $shared (not (include "gitea-issues-mcp.redis" .)) -}}
{{- if gt $max 1 -}}
{{- fail (printf "%d replicas with the write tools or sign-in need Redis, which is off: set redis.url (or redis.existingSecret) so the replicas share one write guard, or replicaCount: 1 without autoscaling" $max) -}}
{{- end -}}
{{- if gt (int .Values.server.workers) 1 -}}
{{- fail (printf "server.workers is %d with the write tools or sign-in, and Redis is off: set redis.url (or redis.existingSecret), or server.workers: 1" (int .Values.server.workers)) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.autoscaling.enabled (gt (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas)) -}}
{{- fail "autoscaling.minReplicas is above autoscaling.maxReplicas: make the floor at most the ceiling" -}}
{{- end -}}
{{- if lt (int (include "gitea-issues-mcp.minReplicas" .)) 1 -}}
{{- fail "replicaCount (or autoscaling.minReplicas) is below 1: the server needs at least one replica" -}}
{{- end -}}
{{- if regexMatch "^[a-z]+://[^/@]*:[^/@]*@" .Values.redis.url -}}
{{- fail "redis.url holds a password: put the whole URL in a Secret and name it in redis.existingSecret (and redis.key), so the password is never in the values or the rendered Deployment" -}}
{{- end -}}
{{- if and .Values.redis.url .Values.redis.existingSecret -}}
{{- fail "redis.url and redis.existingSecret are both set: give the URL one way, the Secret if it holds a password" -}}
{{- end -}}
{{- if and (include "gitea-issues-mcp.signin" .) (not (and .Values.signin.publicUrl .Values.signin.oauthClientId)) -}}
{{- fail "sign-in needs signin.publicUrl and signin.oauthClientId together: set both, or neither" -}}
{{- end -}}
{{- if and (include "gitea-issues-mcp.signin" .) (not .Values.secrets.oauthKey.existingSecret) -}}
{{- fail "sign-in is on but secrets.oauthKey.existingSecret is empty: make a Secret holding 32 random bytes in URL-safe base64 (docs/operators.md says how) and name it, so every replica has the same" -}}
{{- end -}}
{{- if and .Values.secrets.httpSecret.existingSecret (not .Values.secrets.token.existingSecret) -}}
{{- fail "secrets.httpSecret is set but secrets.token is not: the HTTP secret lets a request use the server's token; name the token's Secret too, or drop the HTTP secret" -}}
{{- end -}}
{{- range $name, $value := .Values.server.env -}}
{{- if not (hasPrefix "GITEA_" $name) -}}
{{- fail (printf "server.env has %s, which is not a setting of the server: name settings by their environment variable (GITEA_...)" $name) -}}
{{- end -}}
{{- if has $name (list "GITEA_TOKEN" "GITEA_ACCESS_TOKEN" "GITEA_MCP_HTTP_SECRET" "GITEA_MCP_OAUTH_KEY" "GITEA_MCP_OAUTH_CLIENT_SECRET" "GITEA_MCP_REDIS_URL" "GITEA_URL" "GITEA_HOST" "GITEA_ALLOWED_OWNERS" "GITEA_MCP_TRANSPORT" "GITEA_MCP_HOST" "GITEA_MCP_PORT" "GITEA_MCP_ALLOWED_HOSTS" "GITEA_MCP_WORKERS" "GITEA_MCP_PUBLIC_URL" "GITEA_MCP_OAUTH_CLIENT_ID" "GITEA_MCP_METRICS_ADDRESS" "GITEA_MCP_METRICS_PORT") -}}
{{- fail (printf "server.env has %s, a secret or a setting the chart sets from its own values: set it there (a secret under secrets or redis)" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* One env entry read from a Secret. */}}
{{- define "gitea-issues-mcp.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .ref.existingSecret }}
      key: {{ .ref.key }}
{{- end -}}
