"""Running rule checks: python checks and external commands, outcomes, reports and the review queue."""
