package tickets

import "time"

// JobRecord is the tickets.job.v1 job response: what GET
// /tickets/v1/jobs/{job_id} answers and what a callback carries.
type JobRecord struct {
	SchemaVersion string       `json:"schema_version"`
	JobID         string       `json:"job_id"`
	Status        Status       `json:"status"`
	Stage         Stage        `json:"stage"`
	CreatedAt     time.Time    `json:"created_at"`
	UpdatedAt     time.Time    `json:"updated_at"`
	ExpiresAt     time.Time    `json:"expires_at"`
	Error         *ErrorObject `json:"error"`
}

// ErrorObject is the {code, message} object of the spec's error bodies and
// job records.
type ErrorObject struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

// Record returns the job response of j. Times are UTC.
func (j Job) Record() JobRecord {
	r := JobRecord{
		SchemaVersion: JobSchemaVersion,
		JobID:         j.ID,
		Status:        j.Status,
		Stage:         j.Stage,
		CreatedAt:     j.CreatedAt.UTC(),
		UpdatedAt:     j.UpdatedAt.UTC(),
		ExpiresAt:     j.ExpiresAt.UTC(),
	}
	if j.ErrorCode != "" {
		r.Error = &ErrorObject{Code: j.ErrorCode, Message: j.ErrorMessage}
	}
	return r
}

// Record returns the job response of the job j summarises: the same as
// the job's own Record.
func (j JobSummary) Record() JobRecord {
	return Job{ID: j.ID, Status: j.Status, Stage: j.Stage, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt, ExpiresAt: j.ExpiresAt,
		ErrorCode: j.ErrorCode, ErrorMessage: j.ErrorMessage}.Record()
}
