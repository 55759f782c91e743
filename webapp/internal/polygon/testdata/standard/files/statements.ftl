<#-- statements.ftl -->
